/**
 * The built-in updaters ({@link org.depengine.kvstore.Updater}'s factory methods make them): assign, sum,
 * SGD, and the stateful momentum SGD and Adam ({@link org.depengine.kvstore.optimizers.StatefulUpdater}),
 * MXNet's formulas, element by element, so that a key split into parts updates as the whole key.
 */
package org.depengine.kvstore.optimizers;
