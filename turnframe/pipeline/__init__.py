"""Pure helpers of the durable pipeline: running batches, journal entries, replay records."""
