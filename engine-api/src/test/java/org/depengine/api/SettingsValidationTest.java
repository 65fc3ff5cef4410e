package org.depengine.api;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.depengine.api.device.DeviceProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Invalid values of the settings read outside {@link org.depengine.api.spi.EngineConfig} are refused, naming the property. */
class SettingsValidationTest {
    private static final String EXIT = "depengine.exitTimeoutMs";
    private static final String DISABLED = DeviceProvider.disabledProperty("settingstest");

    @AfterEach
    void clear() {
        System.clearProperty(EXIT);
        System.clearProperty(DISABLED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"soon", "-5", "1.5"})
    void anInvalidExitTimeoutIsNamedByEngineGet(String value) {
        System.setProperty(EXIT, value);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, Engine::get);
        assertTrue(e.getMessage().contains(EXIT) && e.getMessage().contains(value), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"yes", "1", "on"})
    void anInvalidDisabledFlagIsNamed(String value) {
        System.setProperty(DISABLED, value);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DeviceProvider.isDisabled("settingstest"));
        assertTrue(e.getMessage().contains(DISABLED) && e.getMessage().contains(value), e.getMessage());
    }

    @Test
    void theDisabledFlagAcceptsTrueAndFalseInAnyCase() {
        assertFalse(DeviceProvider.isDisabled("settingstest"));
        System.setProperty(DISABLED, " TRUE ");
        assertTrue(DeviceProvider.isDisabled("settingstest"));
        System.setProperty(DISABLED, "false");
        assertFalse(DeviceProvider.isDisabled("settingstest"));
    }
}
