"""What tests, end-to-end tests and benchmarks share: real servers, throwaway databases and
Debian's Chromium. Not part of the product (the wheel leaves it out)."""
