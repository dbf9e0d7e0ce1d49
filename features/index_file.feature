Feature: The index file under a running bot
  The bot keeps its index file open while it runs. Someone may delete or replace that file
  meanwhile, to start afresh. Whatever the bot saved after that would be lost at its next
  start, so it saves nothing more, tells the asker it cannot answer, and tells the operator to
  restart it. The file may also be damaged under it, as a disk fault damages it: then each
  command tells the person who ran it what it could not do and what to do, and the log says
  how to recover.

  Scenario: An index file deleted while the bot runs is not written to, and the log says to restart
    Given the bot is running with the widgets documentation indexed
    When the index file is deleted
    And someone runs /ask "What frobnication depth should I set?"
    Then the reply, for everyone, says "No answering model is configured"
    And the log says "a question that ended passages was not recorded"
    And the log says "was deleted or replaced"
    And the log says "Restart phpbotscout"

  Scenario: /sources on a damaged index says it could not list them, and what to do
    Given the bot is running with the widgets documentation indexed
    When the index file is damaged
    And someone runs /sources
    Then only they see "I can't list the sources right now: the index could not be read."
    And only they see "Try again in a minute; if it keeps happening, tell a moderator"
    And the log says "run 'python -m bot.cli index build' to build a new one"

  Scenario: /status on a damaged index says it could not show the status, and what to do
    Given the bot is running with the widgets documentation indexed
    When the index file is damaged
    And someone runs /status
    Then only they see "I can't show the index status right now: the index could not be read."
    And only they see "Try again in a minute; if it keeps happening, tell a moderator"

  Scenario: A /sources page button pressed after the index was damaged says so, and what to do
    Given 12 repositories, each with a README
    And the bot is running with them indexed
    When someone runs /sources
    And the index file is damaged
    And someone presses "Next" under the list
    Then only they see "I can't show that page of the sources right now: the index could not be read."
    And only they see "Try again in a minute; if it keeps happening, tell a moderator"
    And the list is left as it was

  Scenario: A feedback press the damaged index cannot save says the vote was not saved, and what to do
    Given the bot is running with the widgets documentation indexed
    When someone runs /status
    And the index file is damaged where votes are kept
    And someone presses "Helpful" for an answer
    Then only they see "Your vote could not be saved: the index could not be written."
    And only they see "Press the button again in a minute; if it keeps happening, tell a moderator"
