Feature: Running the bot
  `serve` runs the Discord bot, the scheduled refresh and (when configured) the push webhook
  in one process. It refuses to start without what it needs, before connecting anywhere.

  Background:
    Given a git repository "widgets" holding "README.md":
      """
      # Widgets

      ## Installing

      Run the installer.
      """
    And a configuration indexing those repositories

  Scenario: serve needs the bot token
    When I run `python -m bot.cli serve`
    Then the exit code is 2
    And the error says "environment variable 'DISCORD_TOKEN' is not set"
    And the error says "developer portal"

  Scenario: the push webhook needs its shared secret
    Given the configuration listens for the push webhook on "127.0.0.1:8088"
    And a Discord bot token is set
    When I run `python -m bot.cli serve`
    Then the exit code is 2
    And the error says "PHPBOTSCOUT_WEBHOOK_SECRET"

  Scenario: serve never sends the bot token in plain text
    Given the configuration's Discord address is "http://discord.example/api/v10"
    And a Discord bot token is set
    When I run `python -m bot.cli serve`
    Then the exit code is 2
    And the error says "discord.api_url"
    And the error says "an https URL: DISCORD_TOKEN is sent to it"

  Scenario: serve refuses a Discord address that carries a user name and password
    Given the configuration's Discord address is "http://bot:hunter2@127.0.0.1:9/api/v10"
    And a Discord bot token is set
    When I run `python -m bot.cli serve`
    Then the exit code is 2
    And the error says "discord.api_url"
    And the error says "remove the 'user:password@' part"
    And the error does not say "hunter2"

  Scenario: a webhook address another program holds stops serve before it connects to Discord
    Given the index has been built
    And Discord answers at a fake address
    And a Discord bot token is set
    And the webhook secret is set
    And the configuration listens for the push webhook on a port another program holds
    When I run `python -m bot.cli serve`
    Then the exit code is 2
    And the error says "configuration key 'webhook.listen'"
    And the error says "address already in use"
    And the error says "choose another"
    And Discord was never contacted
    And the error holds no traceback

  Scenario: A webhook secret that is not UTF-8 text is refused by serve and every other command
    Given the configuration listens for the push webhook on "127.0.0.1:8088"
    And the configuration's Discord address is "http://127.0.0.1:9/api/v10"
    And a Discord bot token is set
    And the webhook secret holds a byte that is not UTF-8
    When I run `python -m bot.cli serve`
    Then the exit code is 2
    And the error says "PHPBOTSCOUT_WEBHOOK_SECRET"
    And the error says "UTF-8 text, and it holds bytes that are not"
    When I run `python -m bot.cli index status`
    Then the exit code is 2
    And the error says "PHPBOTSCOUT_WEBHOOK_SECRET"

  Scenario: a token revoked while serve runs ends it with one line saying to replace it
    Given the index has been built
    And Discord answers at a fake address
    And a Discord bot token is set
    When `python -m bot.cli serve` runs until Discord ends its session with close code 4004
    Then the exit code is 1
    And the error says "no longer accepts the bot's token (4004)"
    And the error says "put the new one in DISCORD_TOKEN"
    And the error holds no traceback

  Scenario: intents Discord refuses while serve runs end it with one line saying what to change
    Given the index has been built
    And Discord answers at a fake address
    And a Discord bot token is set
    When `python -m bot.cli serve` runs until Discord ends its session with close code 4014
    Then the exit code is 1
    And the error says "close code 4014 (disallowed intents)"
    And the error says "without that change is refused the same way"
    And the error does not say "start serve again"
    And the error holds no traceback

  Scenario: a token Discord refuses as serve starts stops it with one line saying to replace it
    Given the index has been built
    And Discord answers at a fake address
    And a Discord bot token is set
    When `python -m bot.cli serve` runs and Discord refuses its session with close code 4004
    Then the exit code is 1
    And the error says "Discord refused the bot's token (4004)"
    And the error says "put the new one in DISCORD_TOKEN"
    And the error does not say "Check the network"
    And the error holds no traceback

  Scenario: intents Discord refuses as serve starts are not blamed on the network
    Given the index has been built
    And Discord answers at a fake address
    And a Discord bot token is set
    When `python -m bot.cli serve` runs and Discord refuses its session with close code 4014
    Then the exit code is 1
    And the error says "close code 4014 (disallowed intents)"
    And the error says "the application's settings"
    And the error says "without that change is refused the same way"
    And the error does not say "Check the network"
    And the error holds no traceback

  Scenario: a guild that refuses the slash commands stops serve saying how to add the bot
    Given the index has been built
    And Discord answers at a fake address
    And Discord refuses the slash commands for the configured guild
    And a Discord bot token is set
    When I run `python -m bot.cli serve` as a process of its own
    Then the exit code is 1
    And the error says "Discord refused the slash commands for guild"
    And the error says "the scopes bot and applications.commands"
    And the error does not say "synced to"
    And the error holds no traceback

  Scenario: serve started too often for Discord's window says to wait, not to start again
    Given the index has been built
    And Discord answers at a fake address
    And a Discord bot token is set
    When `python -m bot.cli serve` runs when Discord allows no more session starts
    Then the exit code is 1
    And the error says "no more gateway sessions for now"
    And the error says "Wait until the window resets"
    And the error holds no traceback

  Scenario: SIGTERM while Discord's gateway cannot be reached stops serve cleanly
    Given the index has been built
    And Discord answers at a fake address
    And Discord's gateway cannot be reached
    And a Discord bot token is set
    When `python -m bot.cli serve` is sent SIGTERM while it tries to reach the gateway
    Then the exit code is 0
    And the error says "signal received while starting; stopped cleanly"
    And the error holds no traceback

  Scenario: serve stopped just as a scheduled refresh falls due starts no refresh and logs no error
    Given the index has been built
    And Discord answers at a fake address
    And a Discord bot token is set
    When serve is stopped just as its first scheduled refresh falls due
    Then the log says "refresh schedule started"
    And the log says "stopped"
    And the log does not say "Running job"
    And the log does not say "refresh of due sources started"
    And nothing is logged as an error
