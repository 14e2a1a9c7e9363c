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
    @DisplayName("a mirror takes SYNC topics over a PLAINTEXT, SSL or SASL PLAIN/SCRAM source link; another SASL "
        + "mechanism (GSSAPI by default, OAUTHBEARER), which sync fetches and reports do not serve, is refused rather "
        + "than sent without it")
    void shouldRefuseSyncOverASourceLinkItCannotLogInTo()
    {
        assertNull(withSourceConfigs(Map.of()).syncRefusal());
        assertNull(withSourceConfigs(Map.of("security.protocol", "plaintext")).syncRefusal());
        assertNull(withSourceConfigs(Map.of("security.protocol", "SSL")).syncRefusal());
        assertNull(withSourceConfigs(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512"))
            .syncRefusal());
        assertNull(withSourceConfigs(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN"))
            .syncRefusal());
        for (final Map<String, String> configs : List.of(Map.of("security.protocol", "SASL_SSL"),
            Map.of("security.protocol", "sasl_plaintext", "sasl.mechanism", "OAUTHBEARER")))
        {
            final String refusal = withSourceConfigs(configs).syncRefusal();
            assertTrue(refusal != null && refusal.contains("sasl.mechanism="), configs + ": " + refusal);
        }
    }
}
