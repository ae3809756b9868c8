"""d100 on Discord: slash commands answered at the table server's ``/discord/interactions``.

Discord posts each interaction (a slash command, a button, an autocomplete) to the endpoint,
signed with the application's Ed25519 key; the answer must come within 3 s, else a deferred
answer and a follow-up through Discord's REST API. Nothing here talks to Discord but
``outbox`` and ``register``; the rest is pure (payloads in, messages out)."""
