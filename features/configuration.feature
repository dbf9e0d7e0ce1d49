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
