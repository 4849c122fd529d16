"""What may interrupt the human: the rules and settings, the notifier and the desktop's notification service."""
