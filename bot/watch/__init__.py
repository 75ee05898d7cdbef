"""`denpex watch`: the job's output matched as it is written, alerts sent the moment a root
cause is known (child passthrough, file following, alert policy, delivery to the bot)."""
