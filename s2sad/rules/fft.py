"""Rules: fft (to be filled)."""
