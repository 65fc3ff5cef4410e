/**
 * The guide's checks: {@link org.depengine.docscheck.MarkdownBlocks} (fenced code blocks with the comment
 * line above each), {@link org.depengine.docscheck.MarkdownTable} (a pipe table),
 * {@link org.depengine.docscheck.SettingsReference} (the settings page generated from the catalogs) and
 * {@link org.depengine.docscheck.StringLiterals} (the string literals of Java sources).
 */
package org.depengine.docscheck;
