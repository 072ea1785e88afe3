"""``dokosim serve``: the browser pages (ask about a hand, look at a deal, play a hand) and their JSON API (docs/web.md)."""
