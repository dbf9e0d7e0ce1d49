Feature: The GitLab push webhook
  With `webhook.listen` set, `serve` listens for GitLab's push events: a push to an indexed
  source refreshes that source at once, or, while a refresh runs, in the one run that follows it
  with every source pushed meanwhile, and every request is answered with a status GitLab shows
  on the hook's page.

  Background:
    Given the bot serves the push webhook with "widgets" indexed

  Scenario: a push while the index cannot be read is answered 503 and the log says what to do
    Given the index file has been damaged
    When GitLab sends a push to "widgets"
    Then GitLab is answered 503 with "the index could not be read; see serve's log"
    And nothing was refreshed
    And the log says "push webhook: could not refresh widgets"
    And the log says "move it aside and run 'python -m bot.cli index build'"

  Scenario: a push to a project that is not indexed is acknowledged, so GitLab keeps the hook on
    When GitLab sends a push to "acme/elsewhere"
    Then GitLab is answered 202, ignored because "acme/elsewhere is not an indexed source"
    And nothing was refreshed

  Scenario: a push naming the source in other letter case refreshes it, as GitLab's paths ignore case
    When GitLab sends a push to "Widgets"
    Then GitLab is answered 202, refreshing "widgets"
    And "widgets" is indexed again

  Scenario: pushes to several sources while a refresh runs are refreshed together, by one run
    Given "gadgets" is indexed too
    And a scheduled refresh is in progress
    When GitLab sends a push to "widgets"
    And GitLab sends a push to "gadgets"
    And GitLab sends a push to "widgets"
    And the refresh in progress finishes
    Then one more refresh ran, of "widgets" and "gadgets"
    And the log says "refresh of widgets, gadgets started (push webhook)"

  Scenario: a body nested too deeply to read is refused with 400, not a crash
    When GitLab's token comes with a body of lists nested 100,000 deep
    Then GitLab is answered 400 with "not a push event: no project.path_with_namespace"
    And nothing was refreshed

  Scenario: a push to a source answered from its last index while unresolved refreshes it
    Given "widgets" could not be found at the last refresh and is answered from its last index
    And "widgets" is back where it was
    When GitLab sends a push to "widgets"
    Then GitLab is answered 202, refreshing "widgets"
    And "widgets" is indexed again

  Scenario: a push whose body never arrives does not hold up stopping serve
    Given a sender has begun a push and stalled before its body
    When serve is told to stop
    Then serve stops without waiting for the sender, whose connection is closed unanswered
