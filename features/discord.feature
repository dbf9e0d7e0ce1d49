Feature: Asking in Discord
  People ask in a Discord channel with slash commands. The bot answers from the indexed
  documentation with numbered citations, declines politely when the documentation does not
  answer (and records the gap), explains which repositories it knows about, and reports how
  fresh its index is. Every message it sends pings nobody.

  Background:
    Given the bot is connected to Discord with the widgets documentation indexed

  Scenario: /ask answers with numbered citations and feedback buttons
    Given the model answers "Set `frobnication.depth` to seven." citing "Tuning the frobnicator"
    When someone runs /ask "What frobnication depth should I set?"
    Then the bot first deferred, then edited its reply in
    And the reply shows the answer "Set `frobnication.depth` to seven."
    And the reply cites "https://widgets.example/guide/#tuning-the-frobnicator"
    And the reply has the buttons "Helpful" and "Not helpful"
    And no message the bot sent can ping anyone

  Scenario: /ask cuts an answer too long for Discord and closes its code block
    Given the model answers with 8,000 characters of code fenced by 30 backticks, citing "Tuning the frobnicator"
    When someone runs /ask "What frobnication depth should I set?"
    Then the reply says "The answer was too long to show whole"
    And the answer's code block is closed by the same 30 backticks

  Scenario: A direction override in an answer is shown as an escape, not obeyed
    Given the model answers "Set `frobnication.depth` to seven." with a right-to-left override before "seven", citing "Tuning the frobnicator"
    When someone runs /ask "What frobnication depth should I set?"
    Then the reply shows the answer "Set `frobnication.depth` to \u202eseven."
    And no message the bot sent holds a direction control

  Scenario: /ask declines a question nothing matches, and records the gap
    When someone runs /ask "zyzzyva quux"
    Then the reply says "couldn't find anything"
    And the reply says "Sources searched: widgets"
    And the reply says "recorded the question as a documentation gap"
    And the model was not asked

  Scenario: /ask declines when the documentation does not answer
    Given the model declines because "The guide covers tuning, not colours."
    When someone runs /ask "Which colours can a widget be?"
    Then the reply says "doesn't answer that"
    And the reply says "not colours"

  Scenario: A decline whose reason is long and written in unseen characters still reaches the asker
    Given the model declines with a reason of 600 right-to-left overrides
    When someone runs /ask "Which colours can a widget be?"
    Then the reply says "doesn't answer that"
    And the reply says "recorded the question as a documentation gap"
    And no message the bot sent holds a direction control

  Scenario: A feedback press records a vote, and pressing the other button changes it
    Given the model answers "Set `frobnication.depth` to seven." citing "Tuning the frobnicator"
    And someone has run /ask "What frobnication depth should I set?"
    When a reader presses "Helpful"
    Then only the reader sees "your vote is recorded as helpful"
    When the same reader presses "Not helpful"
    Then the answer has exactly one vote, and it is not helpful

  Scenario: A feedback press on an answer no longer recorded says so and what to do
    Given the model answers "Set `frobnication.depth` to seven." citing "Tuning the frobnicator"
    And someone has run /ask "What frobnication depth should I set?"
    And the answer is no longer recorded
    When a reader presses "Helpful"
    Then only the reader sees "no vote was recorded"
    And only the reader sees "Ask again with /ask to vote on a fresh answer"

  Scenario: A feedback press that fails on the bot's side is answered privately with a reference
    Given the model answers "Set `frobnication.depth` to seven." citing "Tuning the frobnicator"
    And someone has run /ask "What frobnication depth should I set?"
    And Discord refuses the bot's next edit of a reply, once
    When a reader presses "Helpful"
    Then only the reader sees "Something went wrong on my side while handling that."
    And only the reader sees "tell a moderator and quote reference"
    And the bot's log holds the failure under the reference the reader was given

  Scenario: A feedback press is acknowledged at once while a refresh is writing the index
    Given the model answers "Set `frobnication.depth` to seven." citing "Tuning the frobnicator"
    And someone has run /ask "What frobnication depth should I set?"
    And a refresh is writing to the index
    When a reader presses "Helpful" while the refresh writes
    Then Discord is told at once that a private reply is coming
    When the refresh finishes writing
    Then only the reader sees "your vote is recorded as helpful"

  Scenario: A question that waits too long for the model is told the bot is busy
    Given the model answers only when it is released
    And a question may wait only a moment for its turn with the model
    When every model call is taken and someone runs /ask "How do I install widgets?"
    Then only they see "I'm busy"
    And only they see "Ask again in a minute"
    And the question is recorded as busy, not as an error or a documentation gap
    And the questions ahead of it are answered once the model is released

  Scenario: Asking too often is answered privately with how long to wait
    When someone runs /ask "zyzzyva quux" 4 times
    Then only they see "Try again in"

  Scenario: /sources lists every repository with its verdict and deciding clause
    When someone runs /sources
    Then the reply says "2 sources: 1 indexed, 1 rejected, 0 unresolved."
    And the reply says "**widgets** — admitted by"
    And the reply says "**drafts** — rejected by excluded"

  Scenario: /sources shortens a very long repository name and keeps it bold
    Given the index knows a repository whose name is "long-" 80 times
    When someone runs /sources
    Then the reply says "**long\-long\-long\-"
    And every name the list shows is bold, and the bold closes
    And the reply says "…** — rejected by excluded"

  Scenario: A /sources page button that is out of date says so and what to do
    When someone runs /sources
    And someone presses a page button whose id reads "src:page:-1"
    Then only they see "This button is out of date"
    And only they see "Run /sources again"

  Scenario: /sources with a name explains why a repository is not indexed
    When someone runs /sources with name "drafts"
    Then the reply says "**Not indexed**: the excluded rule rejected it"

  Scenario: /sources with a name tells apart two repositories called apart by letter case alone
    Given the index knows an indexed repository called "Drafts"
    When someone runs /sources with name "drafts"
    Then the reply says "**Not indexed**: the excluded rule rejected it"
    When someone runs /sources with name "Drafts"
    Then the reply says "**Indexed**: answers may cite it"
    When someone runs /sources with name "DRAFTS"
    Then the reply says "More than one source is called **DRAFTS**, in letter case alone: **Drafts**, **drafts**. Give the name spelled exactly as one of them is."

  Scenario: /sources with a name shows a long last error cut short, not left out
    Given the last refresh of "widgets" failed with an error 5,000 characters long
    When someone runs /sources with name "widgets"
    Then the reply says "**Last error:** the clone failed because xxx"
    And the reply says "xxx…"

  Scenario: /sources says first that the last GitLab listing failed, what it said and what to check
    Given GitLab's listing of the group failed in the last build with "GitLab answered HTTP 503"
    When someone runs /sources
    Then the reply says "⚠ GitLab's listing of **acme** failed in the last build ("
    And the reply says "so none of its projects is known yet. It said: GitLab answered HTTP 503."
    And the reply says "An operator can check `gitlab.url.api`, `GITLAB_TOKEN` and that GitLab can be reached"
    And the reply says "2 sources: 1 indexed, 1 rejected, 0 unresolved."
    When someone runs /sources with name "acme/widgets"
    Then the reply says "No source called **acme/widgets** is known to the index."
    And the reply says "⚠ GitLab's listing of **acme** failed in the last build ("

  Scenario: /status says first that the last GitLab listing failed, however fresh each source looks
    Given GitLab's listing of the group failed in the last build with "GitLab answered HTTP 503"
    When someone runs /status
    Then the reply says "⚠ GitLab's listing of **acme** failed in the last build ("
    And the reply says "It said: GitLab answered HTTP 503."
    And the reply says "An operator can check `gitlab.url.api`, `GITLAB_TOKEN` and that GitLab can be reached"
    And the reply says "**Answers:** anthropic"

  Scenario: /status says GitLab's projects are from the last listing that worked, though none is indexed
    Given GitLab's listing of the group failed in the last build with "GitLab answered HTTP 503"
    And the index knows a GitLab project "acme/widgets" that was rejected
    When someone runs /status
    Then the reply says "so its projects are listed as the last listing that worked left them"

  Scenario: /status shows freshness, totals and the provider in use
    When someone runs /status
    Then the reply says "**Answers:** anthropic (`claude-haiku-4-5`)"
    And the reply says "**Totals:** 1 sources, 2 documents"
    And the reply says "✓ **widgets**: refreshed"

  Scenario: /status shortens a very long repository name and keeps every source's line
    Given the index knows an indexed repository whose name is "long-" 800 times
    When someone runs /status
    Then the reply says "⚠ **long\-long\-long\-"
    And the reply says "…**: refreshed never"
    And the reply says "✓ **widgets**: refreshed"
