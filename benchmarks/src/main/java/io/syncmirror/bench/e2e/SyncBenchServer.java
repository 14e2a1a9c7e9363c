package io.syncmirror.bench.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;

import io.syncmirror.protocol.MirrorType;

/**
 * {@link SyncBench} under {@code --serve}: the clusters are set up once, then the run takes one command per line
 * on stdin and answers each with one line on stdout. This is what lets {@code bin/syncmirror-gate.sh} interleave
 * two builds' windows (A B B A ...) without paying each build's setup per round: two servers run side by side, and
 * only one is loaded at a time.
 *
 * <pre>
 *   (after setup)              READY
 *   measure ASYNC|SYNC LABEL [SECONDS]
 *                              RESULT ... label=LABEL ...     or  ERROR measure: why
 *   promote                    PROMOTED seconds=X             or  ERROR promote: why
 *   quit (or end of input)     (the run closes and exits 0)
 *   anything else              ERROR unknown command: ...
 * </pre>
 *
 * <p>A window lasts {@code --duration-s} unless SECONDS says otherwise (a warm-up window may be longer). Mirroring
 * starts ASYNC; {@code measure SYNC} is refused until a {@code promote} succeeded, and
 * {@code measure ASYNC} after it. Each window's logs go to the results directory under its label, and its RESULT
 * line is appended to {@code summary.txt}. Single-threaded: it runs on the bench's main thread.
 */
final class SyncBenchServer
{
    /** The line printed once setup is done and commands are taken. */
    static final String READY = "READY";

    private final SyncBench bench;
    private final MirroredClusters clusters;
    private final SpreadLoad load;
    private MirrorType current = MirrorType.ASYNC;

    SyncBenchServer(final SyncBench bench, final MirroredClusters clusters, final SpreadLoad load)
    {
        this.bench = bench;
        this.clusters = clusters;
        this.load = load;
    }

    /** Answers commands from {@code in} until {@code quit} or its end; returns the exit status (0). */
    int serve(final InputStream in, final PrintStream out) throws IOException
    {
        out.println(READY);
        out.flush();
        final BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        String line;
        while ((line = reader.readLine()) != null)
        {
            final String command = line.trim();
            if (command.isEmpty())
            {
                continue;
            }
            if (command.equals("quit"))
            {
                break;
            }
            out.println(answer(command));
            out.flush();
        }
        return 0;
    }

    /**
     * One parsed command line: {@code error} is the ERROR line for a bad one, else {@code promote} or a window of
     * {@code mode} under {@code label} lasting {@code seconds}.
     */
    record Command(boolean promote, MirrorType mode, String label, int seconds, String error)
    {
        static Command refused(final String error)
        {
            return new Command(false, null, null, 0, error);
        }
    }

    /** Parses {@code line} (not {@code quit}); windows last {@code defaultSeconds} unless the line says. */
    static Command parse(final String line, final int defaultSeconds)
    {
        final String[] words = line.trim().split("\\s+");
        if (words[0].equals("promote") && words.length == 1)
        {
            return new Command(true, MirrorType.SYNC, null, 0, null);
        }
        if (!words[0].equals("measure") || words.length < 3 || words.length > 4)
        {
            return Command.refused("ERROR unknown command: " + SyncBench.oneLine(line) + " (measure ASYNC|SYNC LABEL "
                + "[SECONDS], promote, quit)");
        }
        final MirrorType mode;
        try
        {
            mode = MirrorType.valueOf(words[1].toUpperCase(Locale.ROOT));
        }
        catch (final IllegalArgumentException ex)
        {
            return Command.refused("ERROR measure: no mode '" + words[1] + "' (ASYNC or SYNC)");
        }
        if (!words[2].matches("[A-Za-z0-9_.-]{1,64}"))
        {
            return Command.refused("ERROR measure: a label is 1-64 letters, digits, '_', '.' or '-': '" + words[2]
                + "'");
        }
        int seconds = defaultSeconds;
        if (words.length == 4)
        {
            try
            {
                seconds = Integer.parseInt(words[3]);
            }
            catch (final NumberFormatException ex)
            {
                seconds = -1;
            }
            if (seconds < 1 || seconds > 3600)
            {
                return Command.refused("ERROR measure: a window lasts 1..3600 seconds: '" + words[3] + "'");
            }
        }
        return new Command(false, mode, words[2], seconds, null);
    }

    /** Why a window of {@code mode} cannot run while mirroring is {@code current}, or null when it can. */
    static String refusal(final MirrorType current, final MirrorType mode)
    {
        if (mode == current)
        {
            return null;
        }
        return "ERROR measure: mirroring is " + current + ", not " + mode + (mode == MirrorType.SYNC ?
            " (promote first)" : " (a promotion is not undone)");
    }

    private String answer(final String line) throws IOException
    {
        final Command command = parse(line, bench.options().durationSeconds());
        if (command.error() != null)
        {
            return command.error();
        }
        if (command.promote())
        {
            return promote();
        }
        final String refusal = refusal(current, command.mode());
        if (refusal != null)
        {
            return refusal;
        }
        final SyncBench.ModeResult result = bench.measure(command.mode(), command.label(), command.seconds(), load,
            Double.NaN);
        final String resultLine = SyncBench.resultLine(result, bench.options());
        Files.write(bench.options().resultsDir().resolve(SyncBench.SUMMARY_FILE), List.of(resultLine),
            StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        return resultLine;
    }

    private String promote()
    {
        if (current == MirrorType.SYNC)
        {
            return "ERROR promote: every topic is SYNC already";
        }
        try
        {
            final double seconds = bench.promote(clusters);
            current = MirrorType.SYNC;
            return String.format(Locale.ROOT, "PROMOTED seconds=%.2f", seconds);
        }
        catch (final SyncPromotion.PromotionFailedException ex)
        {
            return "ERROR promote: " + SyncBench.oneLine(ex.getMessage());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return "ERROR promote: interrupted";
        }
    }
}
