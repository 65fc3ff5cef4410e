/** The naive engine; use it through {@link org.depengine.api.Engine#create(String)} with "naive". */
package org.depengine.engine.naive;
