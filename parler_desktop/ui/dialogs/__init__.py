"""The window's dialogs (each opened with open(), never exec())."""
