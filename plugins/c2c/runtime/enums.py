"""Java enums: a program's enum class extends ``JavaEnum``; its constants are objects of the class."""

__all__ = ["JavaEnum"]


# printed by name, ordinals from declaration order
class JavaEnum:
    def name(self):
        return self.java_name

    def ordinal(self):
        return self.java_ordinal

    def toString(self):
        return self.java_name

    def __str__(self):
        return self.java_name

    def __repr__(self):
        return self.java_name

    def compareTo(self, other):
        return self.java_ordinal - other.java_ordinal

    def __lt__(self, other):
        return self.java_ordinal < other.java_ordinal

    @classmethod
    def values(cls):
        return list(cls.java_values)

    @classmethod
    def valueOf(cls, name):
        return getattr(cls, name)

    @classmethod
    def constants(cls, **made):
        cls.java_values = []
        for i, (name, value) in enumerate(made.items()):
            value.java_name = name
            value.java_ordinal = i
            setattr(cls, name, value)
            cls.java_values.append(value)
