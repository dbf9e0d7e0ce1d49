Feature: A question that names a repository
  When a question names an indexed repository, that repository's passages take all but one of
  the eight slots, searched without its name; the last slot searches everything with the full
  question, which is where the repository's mentions in other projects turn up. A question
  that asks only about the repository ("what is widgets?") searches it by its name.

  Scenario: The named repository first, its mention elsewhere after it
    Given a git repository "widgets" with 8 pages about sprocket alignment
    And a git repository "handbook" holding "guide.md":
      """
      # Handbook

      ## Using widgets

      Widgets need sprocket alignment.
      """
    And a configuration indexing those repositories
    And the index has been built
    When I run `python -m bot.cli ask "widgets sprocket alignment?" --retrieval-only --json`
    Then the exit code is 0
    And passages 1 to 7 come from "widgets"
    And passage 8 comes from "handbook"

  Scenario: A misspelled identifier is searched by its words inside the named repository too
    Given a git repository "widgets" holding "docs/storage.md":
      """
      # Storage

      ## Reading settings from a file

      Settings are read from the file path given with --config.
      """
    And a git repository "handbook" holding "guide.md":
      """
      # Handbook

      ## Widgets file formats

      Widgets keep each widgets file in the widgets file format.
      """
    And a configuration indexing those repositories
    And the index has been built
    When I run `python -m bot.cli ask "widgets: what is FilePaht for?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 comes from "widgets"

  Scenario: A question only about the named repository finds what the repository says of itself
    Given a git repository "widgets" holding "README.md":
      """
      # Widgets

      Widgets is a toolkit for aligning sprockets.
      """
    And a git repository "widgets" holding "ready.go":
      """
      package widgets

      // IsReady reports whether the sprockets are aligned.
      func IsReady() bool { return true }
      """
    And a configuration indexing those repositories
    And the index has been built
    When I run `python -m bot.cli ask "what is widgets?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "Widgets" from "README.md"
