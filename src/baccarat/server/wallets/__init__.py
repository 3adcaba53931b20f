"""The wallets: adapters of the wallet port (``money.Wallet``). ``ledger``: our double-entry
ledger (every capability of the port); ``operator``: an operator's seamless wallet over
HTTP (none: it settles rounds, and tells a balance). The composition root hands one to the
round engine (``play.round.Dealer``); no table kind imports a wallet."""
