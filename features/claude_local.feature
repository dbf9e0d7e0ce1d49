Feature: Answering with a local claude binary
  With answer.provider = "claude-local", phpbotscout runs a signed-in `claude` binary once per
  question. However that binary is installed, a question ends in its answer or its error within
  answer.timeout.

  Background:
    Given a git repository "widgets" holding "docs/guide.md":
      """
      # Widget guide

      ## Tuning the frobnicator

      Set `frobnication.depth` to seven in `widgets.toml`.
      """
    And a configuration indexing those repositories
    And answers are composed by a local claude binary within "1s"
    And the index has been built

  Scenario: A claude hung in a process it started is stopped at answer.timeout
    Given claude hangs in a process it started, which shares its output
    When I ask "What frobnication depth should I set?" and time it
    Then the exit code is 1
    And the JSON error is of kind "provider" and says "did not answer within answer.timeout (1 s)"
    And it ended within 5 seconds

  Scenario: claude never runs in the directory phpbotscout was started in
    Given the directory phpbotscout runs in holds a CLAUDE.md
    And claude declines because "The guide covers tuning, not colours."
    When I ask "Which colours can a widget be?" and time it
    Then the exit code is 0
    And claude ran in an empty directory that is gone afterwards

  Scenario: A claude killed by a signal is said to have been killed, by which signal
    Given claude is killed by signal 9 before it replies
    When I ask "What frobnication depth should I set?" and time it
    Then the exit code is 1
    And the JSON error is of kind "provider" and says "claude was killed by signal 9 (SIGKILL) without a result"
