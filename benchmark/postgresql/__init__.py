"""Django's PostgreSQL backend with a cheaper pool check (see ``base``)."""
