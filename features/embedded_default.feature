Feature: The embedded default corpus
  On a fresh checkout, with no configuration file and no tokens, phpbotscout answers questions
  about itself from its own documentation, building that index on first use.

  Scenario: With no configuration it answers from its own documentation
    Given no configuration file
    When I run `python -m bot.cli ask "how do I index a GitLab group?" --retrieval-only --json`
    Then the exit code is 0
    And every passage comes from phpbotscout's documentation, not its code
    And passage 1 cites phpbotscout's documentation site

  Scenario: Asked what the bot does, it answers from the page that introduces it
    Given no configuration file
    When I run `python -m bot.cli ask "what does this bot do?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 comes from "docs/index.md"

  Scenario: Asked how to use it in Discord, it answers from the section on /ask
    Given no configuration file
    When I run `python -m bot.cli ask "how do I ask the bot a question in Discord?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "/ask: asking the bot a question" from "docs/discord.md"

  Scenario: Asked what /sources shows, it answers from the section on /sources
    Given no configuration file
    When I run `python -m bot.cli ask "what does /sources show?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "/sources shows why a repository is or is not indexed" from "docs/discord.md"

  Scenario: Asked how to refresh the index, it answers from the section on index build
    Given no configuration file
    When I run `python -m bot.cli ask "how do I refresh the index?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "index build: build and refresh the index from every source" from "docs/reference/cli.md"

  Scenario: Asked which model composes answers, it answers from the section on the model
    Given no configuration file
    When I run `python -m bot.cli ask "which model does it use and how do I change it?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "Which model composes, and how to change it" from "docs/answers.md"

  Scenario: Asked where its database is, it answers from the section on the index file
    Given no configuration file
    When I run `python -m bot.cli ask "where is the database stored?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "The index file: one SQLite database holding everything" from "docs/reference/indexing.md"

  Scenario: Asked about a failed refresh, it answers from the section that says the last index is kept
    Given no configuration file
    When I run `python -m bot.cli ask "what happens if a refresh fails halfway?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "A failed or interrupted refresh keeps the last index" from "docs/reference/indexing.md"

  Scenario: Asked about another forge, it answers from the limit that says how to add one
    Given no configuration file
    When I run `python -m bot.cli ask "does it support GitHub?" --retrieval-only --json`
    Then the exit code is 0
    And passage 1 is "It does not discover repositories on GitHub or other forges" from "docs/limits.md"

  Scenario: A second build with the checkout unchanged reads nothing
    Given no configuration file
    And the index has been built
    When I run `python -m bot.cli index build --json`
    Then the exit code is 0
    And source "phpbotscout" was "unchanged"

  Scenario: index sources says the checkout is read as the embedded default, not from sources.local
    Given no configuration file
    And the index has been built
    When I run `python -m bot.cli index sources --json`
    Then the exit code is 0
    And the output says "the embedded default: no configuration file was found"

  Scenario: A copy without git history, such as a downloaded archive, answers from its files
    Given a copy of phpbotscout's files without its git history
    When that copy is asked "how do I index a GitLab group?"
    Then the exit code is 0
    And every passage comes from phpbotscout's documentation, not its code
    And passage 1 cites phpbotscout's documentation site
    And every passage was read from the copy's files, not from a commit
    When that copy builds its index again
    Then the exit code is 0
    And source "phpbotscout" was "unchanged"

  Scenario: A copy part of which may not be read says so, and answers from its last index
    Given a copy of phpbotscout's files without its git history
    When that copy is asked "how do I index a GitLab group?"
    Then the exit code is 0
    When the "docs" directory of that copy may not be read by this user
    And that copy builds its index again
    Then the exit code is 1
    And source "phpbotscout" was "failed"
    And the output says "cannot be read (Permission denied:"
    And the output says "let the user phpbotscout runs as read it"
    When that copy is asked "how do I index a GitLab group?"
    Then the exit code is 0
    And passage 1 cites phpbotscout's documentation site

  Scenario: A relative XDG_DATA_HOME is ignored, as the XDG Base Directory specification says
    Given no configuration file
    And XDG_DATA_HOME is the relative path "rel"
    When I run `python -m bot.cli index status`
    Then the exit code is 0
    And nothing called "rel" was made where the command ran
    And the index lives in "~/.local/share/phpbotscout"
