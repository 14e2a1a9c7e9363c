package io.syncmirror.perf.data;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A window's cost over time, {@code <LABEL>-timeline.csv} as the sync bench writes it: one row a second with this
 * process's CPU (100 per busy core), the machine's CPU (100 when every core is busy; NaN where it is unknown) and
 * the GC pause time of that second. Immutable once read.
 */
public record Timeline(List<Row> rows)
{
    /** The header the bench writes; a file with another one is from another bench version. */
    public static final String HEADER = "second,process_cpu_pct,machine_cpu_pct,gc_pause_ms";

    /** One second of a window. */
    public record Row(int second, double processCpuPct, double machineCpuPct, long gcPauseMs)
    {
    }

    /** Reads {@code file}; a missing file, another header or a malformed row is an {@link IOException}. */
    public static Timeline read(final Path file) throws IOException
    {
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.get(0).equals(HEADER))
        {
            throw new IOException(file + " does not start with the timeline header '" + HEADER + "'");
        }
        final List<Row> rows = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++)
        {
            final String[] fields = lines.get(i).split(",");
            try
            {
                if (fields.length != 4)
                {
                    throw new NumberFormatException(fields.length + " fields");
                }
                rows.add(new Row(Integer.parseInt(fields[0]), Double.parseDouble(fields[1]),
                    Double.parseDouble(fields[2]), Long.parseLong(fields[3])));
            }
            catch (final NumberFormatException ex)
            {
                throw new IOException(file + " line " + (i + 1) + " is not a timeline row: '" + lines.get(i) + "'",
                    ex);
            }
        }
        return new Timeline(List.copyOf(rows));
    }
}
