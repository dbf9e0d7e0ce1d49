Feature: /status for a source that can no longer be found, and for passages without vectors
  A source the bot indexed but can no longer find keeps answering from its last index.
  `/status` says so, says why, and counts it, as `index status` does. In hybrid mode it also
  says how many passages have no vector yet, and what to do about it.

  Scenario: /status says a source that cannot be found is answered from its last index, and why
    Given the bot serves "widgets", listed on its own, and the repository has since been deleted
    When someone runs /status
    Then the reply says "⚠ **widgets**: refreshed"
    And the reply says "unresolved by missing ("
    And the reply says "widgets does not exist\: correct or remove the path in sources.local), answered from its last index"
    And the reply says "estate holds no git repositories \(and is not one\)\: put a git repository there, or correct or remove the path in sources.local), never indexed"
    And the reply says "0 failing, 2 unresolved"

  Scenario: /status in hybrid mode says how many passages have no vector yet, and what to do
    Given the bot serves the widgets documentation in hybrid mode, and its embedding model fails
    When someone runs /status
    Then the reply says "**Without vectors:** 4 of 4 passages have no vector yet"
    And the reply says "An operator runs `python -m bot.cli index build` to embed them."
