"""Simulation of message races under network delay, driving the model's own step functions."""
