"""Afterhack: agent memory where every belief has a because-chain. This package is the base (the gateways to the
stores and the model, errors, the clock, ids, the listing toolkit): it imports no app; `config` wires them."""
