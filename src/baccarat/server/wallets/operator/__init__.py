"""Operators: the game as a provider, on an operator's seamless wallet (docs/operator-api.md).

``config`` reads the operators file; ``contract`` is the wallet contract an operator speaks,
behind one protocol (``WalletProtocol``: statuses, signing, ids, calls, answers), and
``api_v1`` the one they all speak so far (``signing`` its HMAC, both directions);
``launch`` turns a signed launch into a single-use code and the code into a game session;
``outbox`` is the round's durable state machine and the wallet port's adapter toward the
operator (``OperatorWallet``); ``shared`` the adapter for a shared coup's bettors
(``CoupWallet``); ``client`` makes the calls over HTTP; ``engine`` drives the rounds from
state to state (in the request, and from a worker that resumes unfinished ones); ``report``
answers the operator's reconciliation report; ``check`` audits the rounds' states.
"""
