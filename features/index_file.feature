Feature: The index file under a running bot
  The bot keeps its index file open while it runs. Someone may delete or replace that file
  meanwhile, to start afresh. Whatever the bot saved after that would be lost at its next
  start, so it saves nothing more, tells the asker it cannot answer, and tells the operator to
  restart it.

  Scenario: An index file deleted while the bot runs is not written to, and the log says to restart
    Given the bot is running with the widgets documentation indexed
    When the index file is deleted
    And someone runs /ask "What frobnication depth should I set?"
    Then only they see "the index could not be read"
    And the log says "was deleted or replaced"
    And the log says "Restart phpbotscout"
