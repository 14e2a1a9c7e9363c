package io.syncmirror.broker.metadata;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MirrorDefinitionTest
{
    private static MirrorDefinition withSourceConfigs(final Map<String, String> configs)
    {
        return new MirrorDefinition("dr", "source:9092", configs, List.of(".*"), List.of());
    }

    @Test
    @DisplayName("a mirror takes SYNC topics over a PLAINTEXT or SSL source link: sync fetches and reports do not "
        + "serve SASL yet, and are refused rather than sent without it")
    void shouldRefuseSyncOverASaslSourceLink()
    {
        assertNull(withSourceConfigs(Map.of()).syncRefusal());
        assertNull(withSourceConfigs(Map.of("security.protocol", "plaintext")).syncRefusal());
        assertNull(withSourceConfigs(Map.of("security.protocol", "SSL")).syncRefusal());
        for (final String protocol : List.of("SASL_SSL", "SASL_PLAINTEXT", "sasl_ssl"))
        {
            final String refusal = withSourceConfigs(Map.of("security.protocol", protocol)).syncRefusal();
            assertTrue(refusal != null && refusal.contains("security.protocol=" + protocol), protocol + ": " + refusal);
        }
    }
}
