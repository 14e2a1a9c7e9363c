package io.syncmirror.broker.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temp-directory helpers for storage tests. */
final class TestDirs
{
    private TestDirs()
    {
    }

    static void deleteRecursively(final Path root) throws IOException
    {
        if (root == null || !Files.exists(root))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(root))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(p ->
            {
                try
                {
                    Files.delete(p);
                }
                catch (final IOException e)
                {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    /** Copies a directory tree as it is at this moment, as a crash would leave it. */
    static void copyRecursively(final Path from, final Path to) throws IOException
    {
        try (Stream<Path> paths = Files.walk(from))
        {
            for (final Path p : (Iterable<Path>)paths::iterator)
            {
                final Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p))
                {
                    Files.createDirectories(target);
                }
                else
                {
                    Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
