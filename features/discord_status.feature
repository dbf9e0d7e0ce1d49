Feature: /status for a source that can no longer be found
  A source the bot indexed but can no longer find keeps answering from its last index.
  `/status` says so, says why, and counts it, as `index status` does.

  Scenario: /status says a source that cannot be found is answered from its last index, and why
    Given the bot serves "widgets", listed on its own, and the repository has since been deleted
    When someone runs /status
    Then the reply says "⚠ **widgets**: refreshed"
    And the reply says "unresolved by missing ("
    And the reply says "widgets does not exist), answered from its last index"
    And the reply says "estate holds no git repositories \(and is not one\)), never indexed"
    And the reply says "0 failing, 2 unresolved"
