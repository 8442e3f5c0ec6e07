"""Amounts of money as people write them, in one currency.

"20 euros", "€20", "20€", "EUR 20", "20 EUR", "12,50 €", "1.200,50 EUR", "1,200.50", "twenty
euros", "forty two fifty", "2.5k", "3 thousand": the amount in minor units (cents). The currency
may stand before or after the number, as a symbol, a code or a word; a bare number is taken in
the desk's currency. An amount in another currency is refused (:class:`MoneyError`), never
converted or guessed; so is a magnitude said loosely ("a grand", "3m", "half a k"), so it is
asked about.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from turnframe.reading.numbers import NUMBER_WORDS, number_in_words, with_digits

#: Ways to write a currency, by ISO code.
CURRENCIES: dict[str, tuple[str, ...]] = {
    "EUR": ("€", "eur", "euro", "euros"),
    "USD": ("$", "usd", "dollar", "dollars", "us$", "bucks", "buck"),
    "GBP": ("£", "gbp", "pound", "pounds", "quid"),
    "CHF": ("chf", "franc", "francs"),
    "BRL": ("r$", "brl", "reais"),
    "CAD": ("cad", "c$", "ca$"),
    "AUD": ("aud", "a$", "au$"),
    "JPY": ("¥", "jpy", "yen"),
    "INR": ("₹", "inr", "rs", "rupee", "rupees"),
    "CNY": ("cny", "rmb", "yuan"),
    "SEK": ("sek", "kronor", "krona"),
    "NOK": ("nok", "kroner", "krone"),
    "DKK": ("dkk",),
    "PLN": ("pln", "zloty", "zlotys"),
    "CZK": ("czk",),
    "HUF": ("huf", "forint", "forints"),
    "MXN": ("mxn", "peso", "pesos"),
    "ZAR": ("zar",),
}
#: Currency codes and words (never symbols), for patterns that find an amount in text.
CURRENCY_WORDS = tuple(
    sorted((w for ws in CURRENCIES.values() for w in ws if w.isalpha()), key=len, reverse=True)
)
#: Currency symbols, alone or with a prefix ("€", "r$", "us$").
CURRENCY_SYMBOLS = tuple(
    sorted((w for ws in CURRENCIES.values() for w in ws if not w.isalpha()), key=len, reverse=True)
)
_SYMBOLS = sorted((w for ws in CURRENCIES.values() for w in ws), key=len, reverse=True)
_CUR = "|".join(re.escape(w) for w in _SYMBOLS)
_NUM = r"\d+(?:[.,]\d{1,2})?\s?k|\d{1,3}(?:[.,\s]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_AMOUNT = re.compile(
    rf"(?:(?P<c1>{_CUR})\s*(?P<n1>{_NUM})(?:\s*(?P<c3>{_CUR}))?"
    rf"|(?P<n2>{_NUM})\s*(?P<c2>{_CUR})?"
    rf"(?:\s+(?:and\s+)?(?P<cents>\d{{1,2}})(?:\s+(?:cents?|c))?)?)",
    re.IGNORECASE,
)


_CENTS = re.compile(r"(\d{1,2})\s?(?:cents?|c)", re.IGNORECASE)


class MoneyError(ValueError):
    """Not an amount of money in the expected currency."""


def _currency(word: str | None) -> str | None:
    if word is None:
        return None
    said = word.casefold()
    return next((code for code, ws in CURRENCIES.items() if said in ws), None)


def _decimal(number: str) -> Decimal:
    """"1.200,50" / "1,200.50" / "12,50" / "1.200" / "1 200" → a Decimal."""
    digits = number.replace(" ", "")
    if digits.casefold().endswith("k"):  # "2k" is two thousand
        return Decimal(digits[:-1].replace(",", ".")) * 1000
    last = max(digits.rfind("."), digits.rfind(","))
    if last == -1:
        return Decimal(digits)
    tail = digits[last + 1 :]
    head = re.sub(r"[.,]", "", digits[:last])
    if len(tail) == 3 and re.fullmatch(r"\d{1,3}(?:[.,]\d{3})*[.,]\d{3}", digits):
        return Decimal(head + tail)  # every separator groups thousands
    return Decimal(f"{head}.{tail}")


#: "3 thousand", "1.5 thousand": digits with a scale word read like "3k", "1.5k".
_THOUSAND = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d{1,2})?)\s*thousand(?!\w)", re.IGNORECASE)


def _units_and_cents(words: str) -> str | None:
    """ "forty two fifty" → "42.50": a run of number words no reader takes as one number,
    said as two numbers of ten to ninety-nine (whole units, then cents). Under ten units ("two
    fifty") it could as well be hundreds (250): ``None``, so it is asked about."""
    parts = words.replace("-", " ").split()
    found = []
    for cut in range(1, len(parts)):
        units = number_in_words(" ".join(parts[:cut]))
        cents = number_in_words(" ".join(parts[cut:]))
        if units is not None and cents is not None and 10 <= units <= 99 and 10 <= cents <= 99:
            found.append(f"{units}.{cents:02d}")
    return found[0] if len(found) == 1 else None


def _in_digits(text: str) -> str:
    """``text`` with its numbers in digits: number words, "forty two fifty" (42.50), and
    "3 thousand" (3k)."""

    def pair(m: re.Match[str]) -> str:
        if number_in_words(m.group(0)) is not None:
            return m.group(0)
        return _units_and_cents(m.group(0)) or m.group(0)

    text = _THOUSAND.sub(lambda m: f"{m.group(1)}k", text)
    return with_digits(NUMBER_WORDS.sub(pair, text))


def read_amount(text: str, *, currency: str = "EUR") -> int:
    """The amount ``text`` says, in minor units of ``currency`` (cents)."""
    said = " ".join(_in_digits(text.strip().rstrip(".!?,")).split())
    said = re.sub(
        r"^(?:(?:at|for|of|by|about|around|roughly|exactly|precisely|just|only"
        r"|(?:a|the)\s+(?:total\s+)?(?:amount|sum|total)\s+of)\s+)+",
        "",
        said,
        flags=re.I,
    )
    said = re.sub(
        r"\s+(?:each|apiece|in\s+total|total|(?:per|an?)\s+[a-z]+|even|exactly|flat|sharp)$",
        "",
        said,
        flags=re.I,
    )
    cents_only = _CENTS.fullmatch(said)
    if cents_only is not None:  # "50 cents": minor units of the expected currency
        return int(cents_only.group(1))
    m = _AMOUNT.fullmatch(said)
    if m is None:
        raise MoneyError(f"{text.strip()!r} is not an amount of money")
    codes = {_currency(m.group(g)) for g in ("c1", "c2", "c3") if m.group(g)}
    if codes and codes != {currency}:
        other = ", ".join(sorted(c or "?" for c in codes))
        raise MoneyError(f"{text.strip()!r} is in {other}, not {currency}")
    try:
        value = _decimal(m.group("n1") or m.group("n2"))
    except InvalidOperation:
        raise MoneyError(f"{text.strip()!r} is not an amount of money") from None
    cents = int(value * 100)
    if m.group("cents"):
        if value != value.to_integral_value() or not (m.group("c2") or "cent" in said):
            raise MoneyError(f"{text.strip()!r} is not an amount of money")
        cents += int(m.group("cents"))
    return cents
