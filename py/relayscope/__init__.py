"""Relayscope: turn Claude Code stream-json, session transcripts and Arbiter fleet
streams into clean, de-duplicated relay events, and explain every decision."""

__version__ = "0.1.0"
