"""The one exception a bad file raises."""


class EmbError(ValueError):
    """A file that is not a usable .emb: the message names the file and the problem, as the C++ tools' do."""
