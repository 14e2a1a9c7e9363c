package io.syncmirror.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.FakeMirrorBroker;

/** The source-compatibility probe's three outcomes against broker stand-ins answering ApiVersions. */
@Timeout(30)
class SourceCompatibilityProbeTest
{
    private static int closedPort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    @Test
    @DisplayName("SU-09 a source with Fetch v20 and mirror.sync.version at level 1 is compatible, found past a "
        + "closed bootstrap server")
    void shouldFindACompatibleSourcePastAClosedServer() throws Exception
    {
        try (FakeMirrorBroker source = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults())
            .answerApiVersions(ClusterMirrorsSyncCommandTest.compatibleSource()))
        {
            final SourceCompatibilityProbe.Result result = SourceCompatibilityProbe.probe(
                "127.0.0.1:" + closedPort() + ",127.0.0.1:" + source.port(), 2_000);
            assertEquals(SourceCompatibilityProbe.Outcome.COMPATIBLE, result.outcome());
            assertNull(result.detail());
            assertEquals(1, source.apiVersionsRequests());
        }
    }

    @Test
    @DisplayName("SU-09 a source that refuses ApiVersions v3 is incompatible")
    void shouldCallARefusalOfApiVersionsV3Incompatible() throws Exception
    {
        try (FakeMirrorBroker source = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults())
            .answerApiVersions(ClusterMirrorsSyncCommandTest.compatibleSource()
                .setErrorCode(Errors.UNSUPPORTED_VERSION.code())))
        {
            final SourceCompatibilityProbe.Result result = SourceCompatibilityProbe.probe("127.0.0.1:"
                + source.port(), 2_000);
            assertEquals(SourceCompatibilityProbe.Outcome.INCOMPATIBLE, result.outcome());
            assertTrue(result.detail().contains("does not serve ApiVersions v3"), result.detail());
        }
    }

    @Test
    @DisplayName("SU-09 no server answering, or unparsable source servers, is unreachable with the reason")
    void shouldCallNoAnswerUnreachable() throws Exception
    {
        final String closed = "127.0.0.1:" + closedPort();
        final SourceCompatibilityProbe.Result result = SourceCompatibilityProbe.probe(closed, 2_000);
        assertEquals(SourceCompatibilityProbe.Outcome.UNREACHABLE, result.outcome());
        assertTrue(result.detail().contains(closed), result.detail());
        final SourceCompatibilityProbe.Result unparsable = SourceCompatibilityProbe.probe("nohost", 2_000);
        assertEquals(SourceCompatibilityProbe.Outcome.UNREACHABLE, unparsable.outcome());
        assertTrue(unparsable.detail().contains("'nohost'"), unparsable.detail());
        try (FakeMirrorBroker failing = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults())
            .answerApiVersions(ClusterMirrorsSyncCommandTest.compatibleSource()
                .setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code())))
        {
            final SourceCompatibilityProbe.Result error = SourceCompatibilityProbe.probe("127.0.0.1:"
                + failing.port(), 2_000);
            assertEquals(SourceCompatibilityProbe.Outcome.UNREACHABLE, error.outcome());
            assertTrue(error.detail().contains("UNKNOWN_SERVER_ERROR"), error.detail());
        }
    }
}
