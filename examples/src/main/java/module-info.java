/** Programs a newcomer runs first; each is a {@code main} with {@code --help}. */
module org.depengine.examples {
    requires org.depengine.api;

    exports org.depengine.examples;
}
