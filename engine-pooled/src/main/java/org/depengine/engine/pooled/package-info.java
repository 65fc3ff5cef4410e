/** The pooled engine; use it through {@link org.depengine.api.Engine#create(String)} with "pooled". */
package org.depengine.engine.pooled;
