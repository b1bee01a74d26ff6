"""Telling systems: each workspace's outbound webhooks (Standard Webhooks), their deliveries and every attempt."""
