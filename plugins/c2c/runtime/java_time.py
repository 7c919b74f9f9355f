"""java.time: dates as ``datetime.date``, times as seconds of the day, durations as seconds."""

import calendar
import datetime

__all__ = ["LocalDate", "DayOfWeek", "LocalTime", "Duration", "ChronoUnit"]


class _TimeOrder:
    """Comparisons by ``key()``; a program's class gets these methods written after its own."""

    def isBefore(self, other):
        return self.key() < other.key()

    def isAfter(self, other):
        return self.key() > other.key()

    def isEqual(self, other):
        return self.key() == other.key()

    def equals(self, other):
        return self.key() == other.key()

    def compareTo(self, other):
        return (self.key() > other.key()) - (self.key() < other.key())

    def __eq__(self, other):
        return isinstance(other, type(self)) and self.key() == other.key()

    def __lt__(self, other):
        return self.key() < other.key()

    def __hash__(self):
        return hash(self.key())


class LocalDate(_TimeOrder):
    def __init__(self, day):
        self.day = day

    @staticmethod
    def of(year, month, day):
        return LocalDate(datetime.date(year, month, day))

    @staticmethod
    def parse(text):
        return LocalDate(datetime.date.fromisoformat(str(text)))

    @staticmethod
    def ofEpochDay(days):
        return LocalDate(datetime.date.fromordinal(days + 719163))

    def key(self):
        return self.day

    def plusDays(self, n):
        return LocalDate(self.day + datetime.timedelta(days=n))

    def minusDays(self, n):
        return self.plusDays(-n)

    def plusWeeks(self, n):
        return self.plusDays(7 * n)

    def minusWeeks(self, n):
        return self.plusDays(-7 * n)

    def plusMonths(self, n):
        months = self.day.year * 12 + self.day.month - 1 + n
        year, month = months // 12, months % 12 + 1
        last = calendar.monthrange(year, month)[1]
        return LocalDate(datetime.date(year, month, min(self.day.day, last)))

    def minusMonths(self, n):
        return self.plusMonths(-n)

    def plusYears(self, n):
        return self.plusMonths(12 * n)

    def minusYears(self, n):
        return self.plusMonths(-12 * n)

    def withDayOfMonth(self, n):
        return LocalDate(self.day.replace(day=n))

    def getYear(self):
        return self.day.year

    def getMonthValue(self):
        return self.day.month

    def getDayOfMonth(self):
        return self.day.day

    def getDayOfYear(self):
        return self.day.timetuple().tm_yday

    def getDayOfWeek(self):
        return DayOfWeek.of(self.day.isoweekday())

    def isLeapYear(self):
        return calendar.isleap(self.day.year)

    def lengthOfMonth(self):
        return calendar.monthrange(self.day.year, self.day.month)[1]

    def lengthOfYear(self):
        return 366 if calendar.isleap(self.day.year) else 365

    def toEpochDay(self):
        return self.day.toordinal() - 719163

    def toString(self):
        return self.day.isoformat()

    def __str__(self):
        return self.day.isoformat()


class DayOfWeek:
    NAMES = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"]

    def __init__(self, value):
        self.value = value

    @staticmethod
    def of(value):
        return DayOfWeek(value)

    def getValue(self):
        return self.value

    def ordinal(self):
        return self.value - 1

    def plus(self, n):
        return DayOfWeek((self.value - 1 + n) % 7 + 1)

    def name(self):
        return DayOfWeek.NAMES[self.value - 1]

    def toString(self):
        return self.name()

    def __str__(self):
        return self.name()

    def __eq__(self, other):
        return isinstance(other, DayOfWeek) and self.value == other.value

    def __hash__(self):
        return self.value


for _day, _name in enumerate(DayOfWeek.NAMES):
    setattr(DayOfWeek, _name, DayOfWeek(_day + 1))


class LocalTime(_TimeOrder):
    def __init__(self, seconds):
        self.seconds = seconds % 86400

    @staticmethod
    def of(hour, minute, second=0):
        return LocalTime(hour * 3600 + minute * 60 + second)

    @staticmethod
    def parse(text):
        parts = [int(p) for p in str(text).split(":")]
        return LocalTime.of(*parts)

    @staticmethod
    def ofSecondOfDay(seconds):
        return LocalTime(seconds)

    def key(self):
        return self.seconds

    def plusHours(self, n):
        return LocalTime(self.seconds + 3600 * n)

    def plusMinutes(self, n):
        return LocalTime(self.seconds + 60 * n)

    def plusSeconds(self, n):
        return LocalTime(self.seconds + n)

    def minusHours(self, n):
        return LocalTime(self.seconds - 3600 * n)

    def minusMinutes(self, n):
        return LocalTime(self.seconds - 60 * n)

    def minusSeconds(self, n):
        return LocalTime(self.seconds - n)

    def plus(self, duration):
        return LocalTime(self.seconds + duration.seconds)

    def minus(self, duration):
        return LocalTime(self.seconds - duration.seconds)

    def getHour(self):
        return self.seconds // 3600

    def getMinute(self):
        return self.seconds // 60 % 60

    def getSecond(self):
        return self.seconds % 60

    def toSecondOfDay(self):
        return self.seconds

    def toString(self):
        hour, minute, second = self.seconds // 3600, self.seconds // 60 % 60, self.seconds % 60
        return "%02d:%02d" % (hour, minute) + (":%02d" % second if second else "")  # noqa: UP031 - as programs format

    def __str__(self):
        return self.toString()


class Duration(_TimeOrder):
    def __init__(self, seconds):
        self.seconds = seconds

    @staticmethod
    def between(start, end):
        if hasattr(start, "toEpochDay"):
            return Duration(86400 * (end.toEpochDay() - start.toEpochDay()))
        return Duration(end.seconds - start.seconds)

    @staticmethod
    def ofDays(n):
        return Duration(86400 * n)

    @staticmethod
    def ofHours(n):
        return Duration(3600 * n)

    @staticmethod
    def ofMinutes(n):
        return Duration(60 * n)

    @staticmethod
    def ofSeconds(n):
        return Duration(n)

    def whole(self, unit):
        return abs(self.seconds) // unit * (1 if self.seconds >= 0 else -1)

    def toDays(self):
        return self.whole(86400)

    def toHours(self):
        return self.whole(3600)

    def toMinutes(self):
        return self.whole(60)

    def getSeconds(self):
        return self.seconds

    def toSeconds(self):
        return self.seconds

    def toMillis(self):
        return self.seconds * 1000

    def plus(self, other):
        return Duration(self.seconds + other.seconds)

    def minus(self, other):
        return Duration(self.seconds - other.seconds)

    def isNegative(self):
        return self.seconds < 0

    def isZero(self):
        return self.seconds == 0

    def key(self):
        return self.seconds


class ChronoUnit:
    def __init__(self, seconds):
        self.seconds = seconds

    def between(self, start, end):
        return Duration.between(start, end).whole(self.seconds)


ChronoUnit.SECONDS = ChronoUnit(1)
ChronoUnit.MINUTES = ChronoUnit(60)
ChronoUnit.HOURS = ChronoUnit(3600)
ChronoUnit.DAYS = ChronoUnit(86400)
ChronoUnit.WEEKS = ChronoUnit(604800)
