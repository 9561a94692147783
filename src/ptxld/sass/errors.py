"""The one error type of the SASS tools: a message that names the place and the cause."""


class SassError(ValueError):
    """Bad SASS text, an undecodable word, or an unsupported PTX load to lower."""
