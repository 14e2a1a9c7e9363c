package io.syncmirror.perf.data;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@code RESULT key=value ...} line of the sync bench, as fields. Immutable.
 */
public record ResultLine(Map<String, String> fields)
{
    /** The line's first word. */
    public static final String PREFIX = "RESULT ";

    /** Whether {@code line} is a RESULT line. */
    public static boolean is(final String line)
    {
        return line.startsWith(PREFIX);
    }

    /** Parses a RESULT line; anything else, or a word without '=', is an {@link IllegalArgumentException}. */
    public static ResultLine parse(final String line)
    {
        if (!is(line))
        {
            throw new IllegalArgumentException("not a RESULT line: '" + line + "'");
        }
        final Map<String, String> fields = new LinkedHashMap<>();
        for (final String word : line.substring(PREFIX.length()).trim().split("\\s+"))
        {
            final int equals = word.indexOf('=');
            if (equals <= 0)
            {
                throw new IllegalArgumentException("RESULT field without a value: '" + word + "' in '" + line + "'");
            }
            fields.put(word.substring(0, equals), word.substring(equals + 1));
        }
        return new ResultLine(Collections.unmodifiableMap(fields));
    }

    /** The field {@code name}; missing is an {@link IllegalArgumentException} naming it. */
    public String get(final String name)
    {
        final String value = fields.get(name);
        if (value == null)
        {
            throw new IllegalArgumentException("RESULT line has no field '" + name + "' (fields: " + fields.keySet()
                + "): a bench of another version?");
        }
        return value;
    }

    /** The numeric field {@code name}. */
    public double number(final String name)
    {
        final String value = get(name);
        try
        {
            return Double.parseDouble(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("RESULT field " + name + " is not a number: '" + value + "'", ex);
        }
    }

    /** The window's label: {@code label=} where the bench gives it, else its mode. */
    public String label()
    {
        return fields.getOrDefault("label", get("mode"));
    }
}
