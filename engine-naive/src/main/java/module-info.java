/** The naive engine ({@code naive}): each op runs on the thread that pushed it; the debugging reference. */
module org.depengine.engine.naive {
    requires org.depengine.core;
    requires org.slf4j;

    provides org.depengine.api.spi.EngineProvider with org.depengine.engine.naive.NaiveEngineProvider;
}
