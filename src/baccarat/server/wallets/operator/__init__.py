"""Operators: the game as a provider, on an operator's seamless wallet (docs/operator-api.md).

``config`` reads the operators file; ``signing`` signs and checks both directions;
``launch`` turns a signed launch into a single-use code and the code into a game session;
``outbox`` is the round's durable state machine and the wallet port's adapter toward the
operator (``OperatorWallet``); ``client`` makes the calls over HTTP; ``engine`` drives the
rounds from state to state (in the request, and from a worker that resumes unfinished ones);
``report`` answers the operator's reconciliation report.
"""
