"""The Slack edge: Bolt listeners, Block Kit rendering, file fetching. Thin over `bot.service`."""
