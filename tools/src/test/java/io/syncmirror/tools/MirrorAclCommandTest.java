package io.syncmirror.tools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad arguments to syncmirror-mirror-acls.sh: exit 2 with the problem and the usage, nothing sent anywhere. */
class MirrorAclCommandTest
{
    private static String refused(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exit = MirrorAclCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        final String printed = err.toString(StandardCharsets.UTF_8);
        assertEquals(2, exit, printed);
        assertTrue(printed.contains("Usage:"), printed);
        return printed;
    }

    @Test
    @DisplayName("no bootstrap server, no action, two actions, an unknown operation or option, a principal that is "
        + "not TYPE:NAME, --add without a principal or an operation, an unreadable --command-config: exit 2")
    void shouldRefuseBadArguments()
    {
        assertTrue(refused("--list").contains("--bootstrap-server is required"));
        assertTrue(refused("--bootstrap-server", "h:1").contains("one of --add, --remove, --list"));
        assertTrue(refused("--bootstrap-server", "h:1", "--add", "--list").contains("only one of"));
        assertTrue(refused("--bootstrap-server", "h:1", "--add", "--allow-principal", "User:a", "--operation",
            "Write").contains("Alter, Describe or All"));
        assertTrue(refused("--bootstrap-server", "h:1", "--bogus", "x").contains("unknown option --bogus"));
        assertTrue(refused("--bootstrap-server", "h:1", "--add", "--allow-principal", "ops", "--operation",
            "Alter").contains("not a principal"));
        assertTrue(refused("--bootstrap-server", "h:1", "--add", "--operation", "Alter")
            .contains("--allow-principal or --deny-principal"));
        assertTrue(refused("--bootstrap-server", "h:1", "--list", "--command-config", "/nonexistent/x.properties")
            .contains("cannot read --command-config"));
        assertTrue(refused("--bootstrap-server").contains("needs a value"));
    }
}
