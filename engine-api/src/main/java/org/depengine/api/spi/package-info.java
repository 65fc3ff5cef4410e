/**
 * The engine SPI: implement {@link org.depengine.api.spi.EngineProvider} and declare it with
 * {@code provides} (module path) and a {@code META-INF/services} file (class path).
 */
package org.depengine.api.spi;
