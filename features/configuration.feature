Feature: Reading the configuration
  phpbotscout reads one TOML file when a command starts. A file, key or value it cannot use
  stops the command with exit code 2 and one line saying what is wrong and what to do.

  Background:
    Given a git repository "widgets" holding "README.md":
      """
      # Widgets

      ## Installing

      Run the installer.
      """
    And a configuration indexing those repositories

  Scenario Outline: A refresh interval is a finite duration of at most a year
    Given the configuration sets "index.refresh_interval" to <value>
    When I run `python -m bot.cli index status --json`
    Then the exit code is 2
    And the output says "index.refresh_interval"
    And the output says "at most a year"

    Examples:
      | value                   |
      | inf                     |
      | 1e308                   |
      | "99999999999999999999d" |

  Scenario: A configuration file that does not exist is named with the setting that named it
    Given the environment variable "PHPBOTSCOUT_CONFIG" is "/nonexistent/phpbotscout.toml"
    When I run `python -m bot.cli index status`
    Then the exit code is 2
    And the error says "the configuration file /nonexistent/phpbotscout.toml (named by PHPBOTSCOUT_CONFIG) does not exist"
    And the error says "check the path given in PHPBOTSCOUT_CONFIG"

  Scenario: A file that is not valid TOML is shown with the line and column at fault
    Given a file "mid.toml" holding:
      """
      [sources]
      local = ["estate"]

      [index]
      path = = "index.sqlite"
      """
    When I run `python -m bot.cli --config mid.toml index status`
    Then the exit code is 2
    And the error says "the configuration file mid.toml (named by --config) is not valid TOML: at line 5, column 8: invalid value"
    And the error says "correct it there"

  Scenario: An address with an unclosed IPv6 bracket is a configuration error
    Given the configuration sets "discord.api_url" to "http://[::1"
    When I run `python -m bot.cli index status`
    Then the exit code is 2
    And the error says "configuration key 'discord.api_url' has value 'http://[::1'"
    And the error says "Invalid IPv6 URL"

  Scenario: A .env file that is not UTF-8 says so, and what to do
    Given a file ".env" saved as Latin-1 holding "GITLAB_TOKEN=glpat-café"
    When I run `python -m bot.cli index status`
    Then the exit code is 2
    And the error says "the environment file"
    And the error says ".env (read from the current directory) is not UTF-8 text"
    And the error says "save it as UTF-8"

  Scenario: A count written with digits other than 0 to 9 is a configuration error
    Given the configuration sets "discord.rate_limit" to "²/60s"
    When I run `python -m bot.cli index status`
    Then the exit code is 2
    And the error says "configuration key 'discord.rate_limit' has value '²/60s'"

  Scenario: A user name and password in the GitLab API's address is refused, and never shown
    Given the configuration sets "gitlab.url.api" to "https://reader:PASSWORD@gitlab.example/api/v4"
    When I run `python -m bot.cli index status`
    Then the exit code is 2
    And the error says "configuration key 'gitlab.url.api' has value 'https://***@gitlab.example/api/v4'"
    And the error says "remove the 'user:password@' part"
    And the error does not say "PASSWORD"

  Scenario: A token with a character no HTTP header can carry is refused, and never shown
    Given the environment variable "GITLAB_TOKEN" is "glpat-s3cr“et”"
    When I run `python -m bot.cli index status`
    Then the exit code is 2
    And the error says "environment variable 'GITLAB_TOKEN' has value '<hidden>': printable ASCII"
    And the error says "copy the secret again from where it was issued"
    And the error does not say "s3cr"

  Scenario: A setting that is required and missing is said to be not set
    Given a file "group.toml" holding:
      """
      [gitlab]
      group = "my-org"
      """
    When I run `python -m bot.cli --config group.toml index status`
    Then the exit code is 2
    And the error says "configuration key 'index.feed.url' is not set: required when gitlab.group is set"
    And the error does not say "None"

  Scenario: A number of seconds written in quotes is a duration
    Given the configuration sets "index.refresh_interval" to "3600"
    And the configuration sets "discord.rate_limit" to "3/60"
    And the index has been built
    When I run `python -m bot.cli index status --json`
    Then the exit code is 0
    And the output says "3600.0"
