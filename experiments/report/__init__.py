"""`schedlab report`: every paper claim beside our number, from a results folder."""
