"""Units, currencies, counters and magnitudes the quantity scanner knows.

A unit is ``(canonical, class)``:

* ``hard`` -- a unit of measure or a currency: a figure with a hard unit is vouched only
  by the same value with the same unit (or, for a generic unit, one of its members: ``°``
  covers ``°C``; ``$`` covers ``USD``);
* ``counter`` -- a Chinese or Japanese counter (台, 人, 个): counts of different counters
  are different things;
* ``soft`` -- any other word after a figure ("3 disks"): it only has to not contradict a
  hard unit in the evidence.
"""

from __future__ import annotations

import re
from decimal import Decimal

from . import lexicon

HARD, COUNTER, SOFT = "hard", "counter", "soft"


def _expand(table: dict[str, tuple[str, ...]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for canon, surfaces in table.items():
        for s in surfaces:
            out[s] = canon
    return out


#: The ISO 4217 codes read as a currency before or after a figure, beyond those the table
#: below names with their signs; codes that are also English words or common
#: abbreviations (ALL, CUP, TOP, MAD, SOS, GEL, MOP) are left out.
ISO_CURRENCIES = frozenset(
    [
        "AED",
        "AFN",
        "AMD",
        "AOA",
        "ARS",
        "AZN",
        "BDT",
        "BGN",
        "BHD",
        "BIF",
        "BND",
        "BOB",
        "BWP",
        "BYN",
        "CDF",
        "CLP",
        "COP",
        "CRC",
        "DOP",
        "DZD",
        "EGP",
        "ETB",
        "FJD",
        "GTQ",
        "HNL",
        "HTG",
        "HUF",
        "IQD",
        "IRR",
        "ISK",
        "JMD",
        "JOD",
        "KGS",
        "KHR",
        "KWD",
        "KZT",
        "LBP",
        "LKR",
        "LYD",
        "MDL",
        "MGA",
        "MKD",
        "MMK",
        "MNT",
        "MUR",
        "MVR",
        "MWK",
        "MZN",
        "NAD",
        "NIO",
        "NPR",
        "OMR",
        "PAB",
        "PGK",
        "PKR",
        "PYG",
        "QAR",
        "RSD",
        "RWF",
        "SAR",
        "SCR",
        "SDG",
        "SYP",
        "TJS",
        "TND",
        "TTD",
        "UYU",
        "UZS",
        "VES",
        "XAF",
        "XOF",
        "YER",
        "ZMW",
    ]
)

#: More of the world's currencies by their ISO codes and the signs their own people write
#: before a figure (KSh 1,200,000; TSh; Rp 50.000; RM 12.50; S/ 150).
LOCAL_CURRENCIES: dict[str, tuple[str, ...]] = {
    "KES": ("KES", "KSh", "Ksh", "KShs", "Kshs"),
    "TZS": ("TZS", "TSh", "Tsh", "TShs"),
    "UGX": ("UGX", "USh", "Ush", "USH"),
    "IDR": ("IDR", "Rp"),
    "MYR": ("MYR", "RM"),
    "NGN": ("NGN", "₦"),
    "GHS": ("GHS", "GH₵", "₵"),
    "ZAR": ("ZAR",),
    "PEN": ("PEN", "S/"),
    "UAH": ("UAH", "₴"),
    "CZK": ("CZK", "Kč"),
}

# Case-sensitive surfaces (symbols and short abbreviations, where case is meaning).
_EXACT = _expand(
    {
        "%": ("%", "pct"),
        "‰": ("‰",),
        # flows: a water take's, a pump's, a drip's
        "L/s": ("L/s", "l/s", "L/sec", "l/sec"),
        "L/min": ("L/min", "l/min", "lpm", "LPM"),
        "L/h": ("L/h", "l/h", "L/hr", "l/hr"),
        "mL/min": ("mL/min", "ml/min"),
        "m³/h": ("m³/h", "m3/h", "m³/hr", "m3/hr"),
        "gpm": ("gpm", "GPM"),
        # areas: a flat's, a site's, a scaffold's
        "m²": ("m²", "m2", "sqm", "㎡"),
        # volumes: a lorry's load, a pour of concrete, a shipment's measure
        "m³": ("m³", "m3", "cbm", "CBM", "㎥"),
        "ft²": ("ft²", "ft2", "sqft"),
        "x": ("x", "X", "×"),
        "°": ("°", "deg"),
        "°C": ("°C", "C", "℃", "degC"),
        "°F": ("°F", "F", "℉", "degF"),
        "ns": ("ns",),
        "µs": ("µs", "μs", "us"),
        "ms": ("ms", "msec", "msecs"),
        "s": ("s", "sec", "secs"),
        "min": ("min", "mins"),
        "h": ("h", "hr", "hrs"),
        "day": ("d",),
        "week": ("wk", "wks", "w"),
        "month": ("mo", "mos"),
        "year": ("y", "yr", "yrs"),
        "B": ("B",),
        "KB": ("K", "KB", "kB", "KiB", "kiB", "kb"),
        "MB": ("M", "MB", "MiB", "mb"),
        "GB": ("G", "GB", "GiB", "gb"),
        "TB": ("T", "TB", "TiB", "tb"),
        "PB": ("P", "PB", "PiB", "pb"),
        "Kbit": ("Kb", "Kbit", "kbit"),
        "Mbit": ("Mb", "Mbit", "mbit"),
        "Gbit": ("Gb", "Gbit", "gbit"),
        "Tbit": ("Tb", "Tbit"),
        "Kbit/s": ("Kbps", "kbps", "Kbit/s", "kbit/s", "Kb/s", "kb/s"),
        "Mbit/s": ("Mbps", "mbps", "Mbit/s", "Mb/s"),
        "Gbit/s": ("Gbps", "gbps", "Gbit/s", "Gb/s"),
        "bit/s": ("bps",),
        "KB/s": ("KB/s", "kB/s", "KiB/s", "K/s"),
        "MB/s": ("MB/s", "MiB/s", "M/s"),
        "GB/s": ("GB/s", "GiB/s", "G/s"),
        "tok/s": ("tok/s", "t/s", "tps", "tokens/s", "token/s", "tokens/sec", "tok/sec"),
        "req/s": ("req/s", "rps", "requests/s", "reqs/s", "req/sec", "qps"),
        "it/s": ("it/s",),
        "ops/s": ("ops/s", "op/s", "IOPS", "iops"),
        "fps": ("fps", "FPS"),
        "rpm": ("rpm", "RPM"),
        "Hz": ("Hz", "hz"),
        "kHz": ("kHz", "KHz", "khz"),
        "MHz": ("MHz", "Mhz", "mhz"),
        "GHz": ("GHz", "Ghz", "ghz"),
        "W": ("W",),
        "kW": ("kW", "KW"),
        "MW": ("MW",),
        "mW": ("mW",),
        "V": ("V",),
        "mV": ("mV",),
        "kV": ("kV",),
        "A": ("A",),
        "mA": ("mA",),
        "Wh": ("Wh",),
        "kWh": ("kWh", "KWh"),
        "MWh": ("MWh",),
        "GWh": ("GWh",),
        "mAh": ("mAh",),
        "Ah": ("Ah",),
        "VA": ("VA",),
        "Ω": ("Ω", "Ω"),
        "nm": ("nm",),
        "µm": ("µm", "μm", "um"),
        "mm": ("mm",),
        "cm": ("cm",),
        "m": ("m",),
        "km": ("km", "Km", "KM"),
        "in": ("in", "″"),
        "ft": ("ft", "′"),
        "yd": ("yd",),
        "mi": ("mi",),
        "mg": ("mg",),
        "g": ("g",),
        "kg": ("kg", "Kg", "KG", "kgs"),
        "t": ("t",),
        "lb": ("lb", "lbs"),
        "oz": ("oz",),
        "ml": ("ml", "mL"),
        "L": ("L", "l"),
        "gal": ("gal",),
        "bbl": ("bbl", "bbls"),
        "hL": ("hL", "hl"),
        "cc": ("cc",),
        "dB": ("dB", "db"),
        "px": ("px",),
        "pt": ("pt",),
        "psi": ("psi",),
        "bar": ("bar",),
        "Pa": ("Pa",),
        "kPa": ("kPa",),
        "hPa": ("hPa",),
        "MPa": ("MPa",),
        "J": ("J",),
        "kJ": ("kJ",),
        "cal": ("cal",),
        "kcal": ("kcal",),
        "N": ("N",),
        "Nm": ("Nm",),
        "lm": ("lm",),
        "lx": ("lx",),
        "mph": ("mph",),
        "km/h": ("km/h", "kph", "kmh"),
        "m/s": ("m/s",),
        "kn": ("kn", "kt", "kts"),
        "hp": ("hp", "HP", "PS"),
        "dpi": ("dpi",),
        "ppi": ("ppi",),
        "ppm": ("ppm",),
        "ppb": ("ppb",),
        "USD": ("USD", "US$"),
        "CAD": ("CAD", "C$"),
        "AUD": ("AUD", "A$"),
        "HKD": ("HKD", "HK$"),
        "TWD": ("TWD", "NT$"),
        "SGD": ("SGD", "S$"),
        "NZD": ("NZD", "NZ$"),
        "MXN": ("MXN",),
        "$": ("$",),
        "EUR": ("EUR", "€"),
        "GBP": ("GBP", "£"),
        "JPY": ("JPY", "円"),
        "CNY": ("CNY", "RMB", "元"),
        "¥": ("¥",),
        "KRW": ("KRW", "₩", "원"),
        "INR": ("INR", "₹", "Rs"),
        "RUB": ("RUB", "₽"),
        "CHF": ("CHF",),
        "SEK": ("SEK",),
        "NOK": ("NOK",),
        "DKK": ("DKK",),
        "BRL": ("BRL", "R$"),
        "PLN": ("PLN", "zł"),
        "TRY": ("TRY", "₺"),
        "ILS": ("ILS", "₪"),
        "VND": ("VND", "₫"),
        "THB": ("THB", "฿"),
        "PHP": ("PHP", "₱"),
        **LOCAL_CURRENCIES,
        **{code: (code,) for code in ISO_CURRENCIES},
        "BTC": ("BTC", "₿"),
        "ETH": ("ETH",),
        "¢": ("¢",),
    }
)

# Case-insensitive words (looked up lower-cased).
_WORDS = _expand(
    {
        "%": ("percent", "per cent"),
        # a difference of two percentages is not a percentage (30% -> 33% is +3 pp, +10%)
        "pp": ("percentage point", "percentage points", "pp", "pct pt", "pct pts"),
        "x": ("times", "fold"),
        "°": ("degree", "degrees"),
        "°C": ("celsius", "degrees celsius", "degrees c", "centigrade"),
        "°F": ("fahrenheit", "degrees fahrenheit", "degrees f"),
        "ns": ("nanosecond", "nanoseconds"),
        "µs": ("microsecond", "microseconds"),
        "ms": ("millisecond", "milliseconds"),
        "s": ("second", "seconds"),
        "min": ("minute", "minutes"),
        "h": ("hour", "hours"),
        "day": ("day", "days"),
        "week": ("week", "weeks"),
        "month": ("month", "months"),
        "year": ("year", "years"),
        "decade": ("decade", "decades"),
        "century": ("century", "centuries"),
        "B": ("byte", "bytes"),
        "KB": ("kilobyte", "kilobytes", "kibibyte", "kibibytes"),
        "MB": ("megabyte", "megabytes", "mebibyte", "mebibytes"),
        "GB": ("gigabyte", "gigabytes", "gibibyte", "gibibytes", "gigs"),
        "TB": ("terabyte", "terabytes", "tebibyte", "tebibytes"),
        "PB": ("petabyte", "petabytes"),
        "bit": ("bit", "bits"),
        "Kbit": ("kilobit", "kilobits"),
        "Mbit": ("megabit", "megabits"),
        "Gbit": ("gigabit", "gigabits"),
        "tok/s": ("tokens per second", "tokens a second", "tokens per sec", "tokens/second"),
        "req/s": ("requests per second", "requests a second", "queries per second"),
        "fps": ("frames per second",),
        "rpm": ("revolutions per minute",),
        "Hz": ("hertz",),
        "kHz": ("kilohertz",),
        "MHz": ("megahertz",),
        "GHz": ("gigahertz",),
        "W": ("watt", "watts"),
        "kW": ("kilowatt", "kilowatts"),
        "MW": ("megawatt", "megawatts"),
        "V": ("volt", "volts"),
        "A": ("amp", "amps", "ampere", "amperes"),
        "kWh": ("kilowatt-hour", "kilowatt-hours", "kilowatt hours"),
        "MWh": ("megawatt-hour", "megawatt-hours", "megawatt hours"),
        "Ω": ("ohm", "ohms"),
        "mm": ("millimeter", "millimeters", "millimetre", "millimetres"),
        "cm": ("centimeter", "centimeters", "centimetre", "centimetres"),
        "m": ("meter", "meters", "metre", "metres"),
        "km": ("kilometer", "kilometers", "kilometre", "kilometres"),
        "in": ("inch", "inches"),
        "ft": ("foot", "feet"),
        "yd": ("yard", "yards"),
        "mi": ("mile", "miles"),
        "mg": ("milligram", "milligrams"),
        "g": ("gram", "grams"),
        "kg": ("kilogram", "kilograms", "kilo", "kilos"),
        "t": ("tonne", "tonnes", "metric ton", "metric tons"),
        "ton": ("ton", "tons"),
        "pound": ("pound", "pounds"),
        "oz": ("ounce", "ounces"),
        "stone": ("stone", "stones"),
        "ml": ("milliliter", "milliliters", "millilitre", "millilitres"),
        "L": ("liter", "liters", "litre", "litres"),
        "gal": ("gallon", "gallons"),
        "bbl": ("barrel", "barrels"),
        "hL": ("hectoliter", "hectoliters", "hectolitre", "hectolitres"),
        "cup": ("cup", "cups"),
        "tbsp": ("tbsp", "tablespoon", "tablespoons"),
        "tsp": ("tsp", "teaspoon", "teaspoons"),
        "dB": ("decibel", "decibels"),
        "px": ("pixel", "pixels"),
        "cal": ("calorie", "calories"),
        "kcal": ("kilocalorie", "kilocalories"),
        "mph": ("miles per hour",),
        "km/h": ("kilometers per hour", "kilometres per hour"),
        "kn": ("knot", "knots"),
        "hp": ("horsepower",),
        "acre": ("acre", "acres"),
        "ha": ("hectare", "hectares"),
        "USD": ("usd", "us dollar", "us dollars", "u.s. dollars", "american dollars"),
        "$": ("dollar", "dollars", "buck", "bucks"),
        "EUR": ("euro", "euros", "eur"),
        "GBP": ("gbp", "sterling", "quid"),
        "JPY": ("yen", "jpy"),
        "CNY": ("yuan", "renminbi", "cny", "rmb"),
        "KRW": ("won", "krw"),
        "INR": ("rupee", "rupees", "inr"),
        "RUB": ("ruble", "rubles", "rouble", "roubles"),
        # the names people say their money by, where the name is one country's
        "NGN": ("naira",),
        "GHS": ("cedi", "cedis"),
        "ZAR": ("rand",),
        "THB": ("baht",),
        "MYR": ("ringgit",),
        "IDR": ("rupiah",),
        "VND": ("dong",),
        "PHP": ("philippine peso", "philippine pesos"),
        "BDT": ("taka",),
        "ETB": ("birr",),
        "TRY": ("turkish lira",),
        "PLN": ("zloty", "zlotys", "złoty"),
        "CHF": ("franc", "francs", "swiss francs", "chf"),
        "¢": ("cent", "cents"),
        "BTC": ("bitcoin", "bitcoins", "btc"),
    }
)
_WORDS["pound"] = "pound"

# Chinese and Japanese units, counters and currencies, written right after a figure.
_CJK_HARD = _expand(
    {
        "%": ("パーセント", "％"),
        "pp": ("ポイント", "個百分點", "个百分点", "百分点", "百分點"),
        "x": ("倍",),
        "°": ("度",),
        "s": ("秒", "秒間", "秒钟", "秒鐘"),
        "min": ("分钟", "分鐘", "分間", "分"),
        # 个钟 and 个钟头: Cantonese and spoken Mandarin hours (冷藏48个钟)
        "h": (
            "時間",
            "小时",
            "小時",
            "个小时",
            "個小時",
            "钟头",
            "鐘頭",
            "个钟头",
            "個鐘頭",
            "个钟",
            "個鐘",
        ),
        "day": ("天", "日間", "日间"),
        # 二十日 is the twentieth as often as twenty days: never the duration 20日間 / 20天
        "日": ("日", "号", "號"),
        "week": ("週間", "周", "週", "星期", "个星期", "個星期", "礼拜", "禮拜"),
        "month": (
            "ヶ月",
            "か月",
            "カ月",
            "ケ月",
            "ヵ月",
            "箇月",
            "个月",
            "個月",
            "ヶ月間",
            "か月間",
            "カ月間",
        ),
        "year": ("年間", "年", "周年", "週年"),
        "JPY": ("円", "日元", "日圆", "日圓", "日币", "日幣"),
        # 蚊: the Cantonese word for a yuan or a dollar (68蚊), as 元 is read
        "CNY": ("元", "块钱", "塊錢", "人民币", "人民幣", "圆", "蚊"),
        # 刀, 美刀: dollars, as cross-border sellers say them
        "USD": ("美元", "米ドル", "美金", "美刀", "刀"),
        "¢": ("セント", "美分"),
        "$": ("ドル",),
        "EUR": ("欧元", "歐元", "ユーロ"),
        "GBP": ("英镑", "英鎊"),
        "pound": ("ポンド",),
        "HKD": ("港元", "港币", "港幣"),
        "TWD": ("新台币", "新台幣", "台币"),
        "KRW": ("韩元", "韓元", "ウォン"),
        "km": ("公里", "キロメートル", "千米"),
        "mi": ("英里", "マイル"),
        "ft": ("英尺", "フィート", "呎"),
        "in": ("英寸", "吋", "インチ"),
        # areas, as Hong Kong, the mainland and Japan write them
        "m²": ("平方米", "平米", "平方公尺", "平方メートル", "㎡"),
        "ft²": ("平方呎", "平方英尺", "平方フィート"),
        "坪": ("坪",),
        "m³": ("立方米", "立方メートル", "立米"),
        "m": ("メートル", "米"),
        "cm": ("厘米", "センチ", "センチメートル"),
        "mm": ("毫米", "ミリ", "ミリメートル"),
        "kg": ("公斤", "千克", "キログラム"),
        "t": ("吨", "噸", "公吨", "公噸", "トン"),
        "g": ("克", "グラム"),
        "jin": ("斤", "台斤"),  # 台斤: the catty as Taiwan weighs it, its 斤
        "L": ("升", "リットル"),
        "ml": ("毫升", "ミリリットル"),
        "W": ("瓦", "ワット"),
        "kW": ("千瓦",),
        "V": ("伏", "伏特", "ボルト"),
        "Hz": ("赫兹", "ヘルツ"),
        "キロ": ("キロ",),
        "MB": ("メガ", "兆字节"),
        "GB": ("ギガ",),
        "TB": ("テラ",),
    }
)
_CJK_COUNTERS = lexicon.words("units_cjk_counters")

#: Generic units and the specific units they cover (the candidate may be less specific).
FAMILIES: dict[str, frozenset[str]] = {
    "°": frozenset({"°C", "°F"}),
    "$": frozenset({"USD", "CAD", "AUD", "HKD", "TWD", "SGD", "NZD", "MXN"}),
    "¥": frozenset({"JPY", "CNY"}),
    "pound": frozenset({"GBP", "lb"}),
    "キロ": frozenset({"kg", "km"}),
    "ton": frozenset({"t"}),
}

#: Multipliers written after a figure: 1.5M, 12k, 3 million, 2bn.
MAGNITUDES = {
    "k": Decimal(1000),
    "K": Decimal(1000),
    "thousand": Decimal(1000),
    "M": Decimal(10) ** 6,
    "mn": Decimal(10) ** 6,
    "mil": Decimal(10) ** 6,
    "million": Decimal(10) ** 6,
    "B": Decimal(10) ** 9,
    "bn": Decimal(10) ** 9,
    "billion": Decimal(10) ** 9,
    "T": Decimal(10) ** 12,
    "tn": Decimal(10) ** 12,
    "trillion": Decimal(10) ** 12,
    "lakh": Decimal(10) ** 5,
    "crore": Decimal(10) ** 7,
}

#: English function words: articles, pronouns, prepositions, conjunctions, auxiliaries and
#: quantifiers. Shared by the floors that read English (what follows a figure, what a claim
#: credits); each adds its own words to it.
ENGLISH_FUNCTION_WORDS = lexicon.words("units_english_function_words")

#: Words that follow a figure without being its unit.
FUNCTION_WORDS = ENGLISH_FUNCTION_WORDS | lexicon.words("units_function_words")


def hard_unit(surface: str) -> str | None:
    """The canonical hard unit a surface form names, or None."""
    if surface in _EXACT:
        return _EXACT[surface]
    low = surface.lower()
    if low in _WORDS:
        return _WORDS[low]
    return None


#: Words that begin with 目 after a duration and make no ordinal (45分目標 is a goal of
#: 45 minutes, 3週目 the third week).
_ME_WORDS = ("目標", "目的", "目安", "目指", "目線", "目処", "目途", "目前", "目下", "目録", "目玉")
#: The marks that number a thing (3号棚) as well as a day of the month (3号下午).
_NUMBER_MARKS = frozenset({"号", "號"})


def _labels_a_thing(text: str, pos: int) -> bool:
    """Whether the word at *pos*, after a 号, is a thing it numbers (棚, 线, 楼, 传感器 …:
    the list ``designation_heads``)."""
    return lexicon.pattern("designation_heads").match(text, pos) is not None


def cjk_unit(text: str, pos: int) -> tuple[str, str, int] | None:
    """The CJK unit, currency or counter at *pos*: (canonical, class, end), longest first."""
    for length in (5, 4, 3, 2, 1):
        piece = text[pos : pos + length]
        if len(piece) < length:
            continue
        if piece in _CJK_HARD:
            if piece in _NUMBER_MARKS and _labels_a_thing(text, pos + length):
                return piece, COUNTER, pos + length  # 3号棚: greenhouse number 3
            if text[pos + length : pos + length + 1] == "目" and not text.startswith(
                _ME_WORDS, pos + length
            ):
                return piece + "目", COUNTER, pos + length + 1  # 2週目: the second week
            return _CJK_HARD[piece], HARD, pos + length
        if piece in _CJK_COUNTERS:
            if piece in ("个", "個") and text[pos + 1 : pos + 2] == "人":
                return "人", COUNTER, pos + 2  # 30个人 counts people, as 30人 does
            return _SAME_COUNTER.get(piece, piece), COUNTER, pos + length
    return None


def katakana_counter(text: str, pos: int) -> tuple[str, str, int] | None:
    """A word in katakana written onto a figure at *pos* (4,800ショット, 12ロット, 3ケース):
    what the figure counts, compared as a counter is (4,800ショット is no 4,800個)."""
    m = _KATAKANA_COUNTER.match(text, pos)
    return (m.group(0), COUNTER, m.end()) if m is not None else None


#: A word in katakana: two to ten letters, not opening with a long-vowel mark or a small ヶ.
_KATAKANA_COUNTER = re.compile(r"[\u30a1-\u30f4\u30f7-\u30fa][\u30a1-\u30fa\u30fc]{1,9}")


#: Counters that count the same things written another way: 名 is 人 said formally, and
#: the traditional characters are the simplified ones (個 个, 隻 只, 張 张).
_SAME_COUNTER = dict(zip("名個隻張間條輛塊筆頭雙", "人个只张间条辆块笔头双", strict=True))


#: Counters of people: what Chinese 个/個 also counts (20个 of people who cancelled).
_PEOPLE_COUNTERS = frozenset({"人", "位", "名"})


def covers_unit(c_unit: str, c_class: str, e_unit: str, e_class: str) -> bool:
    """Whether a candidate's unit is vouched by an evidence unit (same value assumed).

    No unit claims nothing beyond the figure. A hard unit needs the same hard unit (or a
    member of it when the candidate's is generic). A counter needs no unit, a soft word or
    the same counter. A soft word needs anything but a hard unit.
    """
    if not c_unit:
        return True
    if c_class == HARD:
        return e_class == HARD and (
            c_unit == e_unit
            or e_unit in FAMILIES.get(c_unit, ())
            # キロ is kilograms or kilometres: the candidate may say which (10キロ of
            # apples as 10kg)
            or (e_unit == "キロ" and c_unit in FAMILIES["キロ"])
            # ¥ is the sign of the yen and of the yuan: a text without kana or hanzi to
            # tell which may be written either way
            or (e_unit == "¥" and c_unit in ("JPY", "CNY"))
        )
    if c_class == COUNTER:
        return e_class != HARD and (
            e_class != COUNTER
            or e_unit == c_unit
            # 个 (個 folds to it) counts people in Chinese too: 退了20个 vouches 20人; never
            # shots or boxes (Japanese 4,800個 is pieces, no 4,800ショット)
            or (e_unit in ("个", "個") and c_unit in _PEOPLE_COUNTERS)
        )
    return e_class != HARD
