Feature: Hybrid retrieval
  In hybrid mode a question is searched three ways: by its words (BM25), by the names of
  symbols it mentions or describes, and by meaning (an embedding model). The rankings are
  fused by rank, and the chunk declaring a symbol the question names comes first. Embeddings
  are made while indexing, and only for text that is new or changed.

  Background:
    Given a git repository "vision" holding "tracker.py":
      """
      \"\"\"Tracks faces across frames.\"\"\"


      class FaceTrack:
          \"\"\"One face followed over time.\"\"\"

          def update_with_detection(self, detection):
              \"\"\"Move the track to a new detection and reset its age.\"\"\"
              self.box = detection.box
              self.age = 0


      def reset(track):
          \"\"\"Forget what a track has seen.\"\"\"
          track.age = 0


      def update_detections(tracks, detections):
          \"\"\"Refresh every track's detections, calling update on each detection.\"\"\"
          for track in tracks:
              track.update(detections)
      """
    And a git repository "vision" holding "frames.py":
      """
      \"\"\"Frames of a video.\"\"\"


      class Frame:
          \"\"\"One picture of the stream.\"\"\"

          def crop(self, box):
              \"\"\"Keep only the part of the frame inside the box.\"\"\"
              return self


      def crop(path, box):
          \"\"\"Cut a saved image file down to the box, in place.\"\"\"
      """
    And a git repository "vision" holding "docs/updates.md":
      """
      # Updates

      ## Update with detection

      Each update with detection data runs per frame: update, detection, update, detection.

      ## A clean slate

      Run `tracker --fresh reset` to begin a new session: the faces found so far are forgotten.
      """
    And a git repository "cli" holding "docs/flags.md":
      """
      # Flags

      ## Required flags

      Mark a flag as mandatory and the app stops with an error when it is missing.

      ## Aliases

      A flag can have several names.
      """
    And the index is built in hybrid mode with a small concept model

  Scenario Outline: A symbol named in another casing or with a typo is pinned first
    When I retrieve passages for "<question>" with BM25 alone
    Then passage 1 does not declare "FaceTrack.update_with_detection"
    When I retrieve passages for "<question>"
    Then passage 1 declares "FaceTrack.update_with_detection" in "vision/tracker.py"

    Examples:
      | question                                  |
      | what does updateWithDetection do?         |
      | what does UpdateWithDetection return?     |
      | what does updateWithDetecton do?          |
      | when is `UpdateWithDetektion` called?     |

  Scenario: A name called on a variable is taken for a method, not a function
    When I retrieve passages for "why does `shot.crop()` lose faces?"
    Then passage 1 declares "Frame.crop" in "vision/frames.py"

  Scenario: A word that only ends a longer code span is not taken for a symbol's name
    When I retrieve passages for "after `tracker --fresh reset` where did my faces go?"
    Then passage 1 is the section "A clean slate"

  Scenario: A paraphrased question finds its answer in hybrid mode
    When I retrieve passages for "can the program refuse to start without some option?" with BM25 alone
    Then no passage is the section "Required flags"
    When I retrieve passages for "can the program refuse to start without some option?"
    Then passage 1 is the section "Required flags"

  Scenario: Only changed text is embedded again
    When "cli" changes "docs/flags.md" from "several names" to "many names" and the index is refreshed
    Then the model embedded only text containing "many names"

  Scenario: A source that could not be checked this run keeps its names and its meaning
    When the repositories can no longer be found where they are listed and the index is refreshed
    And I retrieve passages for "what does updateWithDetecton do?"
    Then passage 1 declares "FaceTrack.update_with_detection" in "vision/tracker.py"
    When I retrieve passages for "can the program refuse to start without some option?"
    Then passage 1 is the section "Required flags"

  Scenario: Without the embed extra, what only reads the index still works
    Given the embed extra is not installed
    And a configuration file choosing hybrid retrieval
    When I run `python -m bot.cli index status`
    Then the exit code is 0
    And the output says "2 sources"
    When I run `python -m bot.cli index sources`
    Then the exit code is 0
    And the output says "listed in sources.local"
    When I run `python -m bot.cli gaps`
    Then the exit code is 0
    When I run `python -m bot.cli index build`
    Then the exit code is 2
    And the error says "hybrid retrieval needs an embedding model"
    When I run `python -m bot.cli ask "what does reset do?"`
    Then the exit code is 2
    And the error says "of the embed extra cannot be found. Install the extra with"

  Scenario: index status counts the passages still without a vector, and says what embeds them
    Given a configuration file choosing hybrid retrieval
    When "cli" changes "docs/flags.md" from "several names" to "many names" and the index is built in bm25 mode
    And I run `python -m bot.cli index status`
    Then the output says "1 of 13 passages has no vector yet"
    And the output says "Run 'python -m bot.cli index build' to embed them."
    When I run `python -m bot.cli index status --json`
    Then the totals count 1 chunk without vectors

  Scenario: A model put on the path without being installed is refused with what to do
    Given the embed extra is not installed
    And the model's modules can be imported but were never installed as a package
    And a configuration file choosing hybrid retrieval
    When I run `python -m bot.cli index build` as a process of its own
    Then the exit code is 2
    And the error says "can be imported but has no package metadata"
    And the error says "Install the extra again with"
    And the error does not say "Traceback"
