Feature: Measuring retrieval with the benchmark
  The benchmark indexes a directory of repositories and reports how often the passage that
  answers each question is among the first eight, per band.

  Scenario: A small benchmark reports hits per band and the misses
    Given a git repository "widgets" holding "docs/guide.md":
      """
      # Guide

      Intro.

      ## Tuning the frobnicator

      Set the frobnication depth to seven.
      """
    And a questions file:
      """
      {"id": "q1", "band": "docs", "question": "what frobnication depth?", "expected": [{"repo": "widgets", "path": "docs/guide.md", "heading": "Tuning the frobnicator"}], "note": ""}
      {"id": "q2", "band": "docs", "question": "how do sprockets spin?", "expected": [{"repo": "widgets", "path": "docs/guide.md", "heading": "Sprockets"}], "note": ""}
      {"id": "q3", "band": "unanswerable", "question": "who wrote widgets?", "expected": [], "note": ""}
      """
    When I run `python -m bot.cli bench questions.jsonl --repos estate --json`
    Then the exit code is 0
    And the docs band has hit@8 of 0.5
    And question "q2" is a miss
    And question "q3" has a top score

  Scenario: Hybrid retrieval without the embedding model names the option that chose it
    Given the embedding model is not installed
    And a git repository "widgets" holding "README.md":
      """
      # Widgets
      """
    And a questions file:
      """
      {"id": "q1", "band": "unanswerable", "question": "who wrote widgets?", "expected": [], "note": ""}
      """
    When I run `python -m bot.cli bench questions.jsonl --repos estate --retrieval hybrid`
    Then the exit code is 2
    And the error says "--retrieval hybrid"
    And the error says ".venv/bin/pip install -e '.[embed]' in the phpbotscout checkout"
    And the error does not say "retrieval.mode"

  Scenario: A question without its text is refused, naming the line
    Given a git repository "widgets" holding "docs/guide.md":
      """
      # Guide
      """
    And a questions file:
      """
      {"id": "q1", "band": "unanswerable", "question": "who wrote widgets?", "expected": []}
      {"id": "q2", "band": "docs", "question": null, "expected": [{"repo": "widgets", "path": "docs/guide.md", "heading": "Guide"}]}
      """
    When I run `python -m bot.cli bench questions.jsonl --repos estate --json`
    Then the exit code is 2
    And the JSON error is of kind "usage" and says "questions.jsonl line 2: question is null"

  Scenario: A questions file that is not there is refused, saying what to give
    When I run `python -m bot.cli bench missing.jsonl --repos estate`
    Then the exit code is 2
    And the error says "Cannot read the questions file missing.jsonl (No such file or directory)"
    And the error says "give the path of the JSON Lines file of questions to measure"
    And the error does not say "Errno"

  Scenario: A directory holding no repositories is refused, not measured as all zeros
    Given a questions file:
      """
      {"id": "q1", "band": "unanswerable", "question": "who wrote widgets?", "expected": []}
      """
    When I run `python -m bot.cli bench questions.jsonl --repos estate --json`
    Then the exit code is 2
    And the JSON error is of kind "usage" and says "holds no git repositories"

  Scenario: A repository that cannot be indexed is named, not silently scored as misses
    Given a git repository "widgets" holding "docs/guide.md":
      """
      # Guide

      ## Tuning the frobnicator

      Set the frobnication depth to seven.
      """
    And a git repository "gadgets" holding "README.md":
      """
      # Gadgets
      """
    And "gadgets" loses the object of its last commit
    And a questions file:
      """
      {"id": "q1", "band": "docs", "question": "what frobnication depth?", "expected": [{"repo": "widgets", "path": "docs/guide.md", "heading": "Tuning the frobnicator"}]}
      """
    When I run `python -m bot.cli bench questions.jsonl --repos estate`
    Then the exit code is 0
    And the output says "not indexed, so its questions count as misses: gadgets"
    And the log says "refresh of gadgets failed"

  Scenario: A broken configuration file in the working directory does not stop the benchmark
    Given a git repository "widgets" holding "README.md":
      """
      # Widgets
      """
    And a questions file:
      """
      {"id": "q1", "band": "unanswerable", "question": "who wrote widgets?", "expected": [], "note": ""}
      """
    And a phpbotscout.toml that is not TOML
    When I run `python -m bot.cli bench questions.jsonl --repos estate --json`
    Then the exit code is 0
    And question "q1" has a top score

  Scenario: A configuration file given to the benchmark is refused, not silently ignored
    Given a questions file:
      """
      {"id": "q1", "band": "unanswerable", "question": "who wrote widgets?", "expected": [], "note": ""}
      """
    When I run `python -m bot.cli --config phpbotscout.toml bench questions.jsonl --repos estate --json`
    Then the exit code is 2
    And the JSON error is of kind "usage" and says "bench reads no configuration, so --config would be ignored"
    And the JSON error is of kind "usage" and says "--repos DIR, --retrieval bm25|hybrid"
    And the JSON error is of kind "usage" and says "Run 'python -m bot.cli bench --help'"

  Scenario: A configuration file given after the benchmark's options is refused with the benchmark's usage
    Given a questions file:
      """
      {"id": "q1", "band": "unanswerable", "question": "who wrote widgets?", "expected": [], "note": ""}
      """
    When I run `python -m bot.cli bench questions.jsonl --repos estate --config phpbotscout.toml` as a process of its own
    Then the exit code is 2
    And the error says "usage: python -m bot.cli bench [-h] --repos DIR"
    And the error says "bench reads no configuration, so --config would be ignored"
    And the error does not say "COMMAND"
