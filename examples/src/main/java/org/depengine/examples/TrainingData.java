package org.depengine.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A classification data set held on the host: {@code rows} samples of {@code features} floats
 * (row-major in {@link #x}) with an integer label in {@code 0 .. classes-1} each. Immutable once made.
 */
final class TrainingData {
    final int rows;
    final int features;
    final int classes;
    final float[] x;
    final int[] y;
    final String description;

    private TrainingData(int rows, int features, int classes, float[] x, int[] y, String description) {
        this.rows = rows;
        this.features = features;
        this.classes = classes;
        this.x = x;
        this.y = y;
        this.description = description;
    }

    /**
     * Interleaved spirals in the plane, one arm per class, each point's angle jittered by Gaussian
     * noise: a set a linear model cannot separate, and a small two-layer network can.
     */
    static TrainingData spiral(int perClass, int classes, double noise, long seed) {
        Random rnd = new Random(seed);
        int rows = perClass * classes;
        float[] x = new float[rows * 2];
        int[] y = new int[rows];
        for (int c = 0; c < classes; c++) {
            for (int i = 0; i < perClass; i++) {
                int row = c * perClass + i;
                double t = (double) i / (perClass - 1);          // 0..1 along the arm
                double radius = t;
                double angle = 4.0 * (c + t) + rnd.nextGaussian() * noise;
                x[row * 2] = (float) (radius * Math.sin(angle));
                x[row * 2 + 1] = (float) (radius * Math.cos(angle));
                y[row] = c;
            }
        }
        return new TrainingData(rows, 2, classes, x, y,
                rows + " samples, " + classes + "-class spiral (seed " + seed + ")");
    }

    /**
     * Reads a CSV file: one sample per line, the features then the label (an integer from 0), all
     * separated by commas. A first line that does not start with a number is taken as a header. Blank
     * lines are skipped.
     *
     * @throws IllegalArgumentException naming the file and line, for a malformed line, a negative
     *     label, a row with another number of columns than the first, or a file with no sample
     * @throws IOException if the file cannot be read
     */
    static TrainingData csv(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<float[]> xs = new ArrayList<>();
        List<Integer> ys = new ArrayList<>();
        int columns = -1;
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n).strip();
            if (line.isEmpty() || (n == 0 && !startsWithNumber(line))) {
                continue;
            }
            String[] cells = line.split(",");
            String where = file + ":" + (n + 1);
            if (columns < 0) {
                if (cells.length < 2) {
                    throw new IllegalArgumentException(where + ": a sample needs at least one feature and a label");
                }
                columns = cells.length;
            } else if (cells.length != columns) {
                throw new IllegalArgumentException(where + ": " + cells.length + " columns, the first sample has " + columns);
            }
            float[] features = new float[columns - 1];
            try {
                for (int i = 0; i < features.length; i++) {
                    features[i] = Float.parseFloat(cells[i].strip());
                }
                int label = Integer.parseInt(cells[columns - 1].strip());
                if (label < 0) {
                    throw new IllegalArgumentException(where + ": label " + label + " is negative; use 0, 1, 2, ...");
                }
                ys.add(label);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(where + ": '" + line + "' is not numbers followed by an integer label", e);
            }
            xs.add(features);
        }
        if (xs.isEmpty()) {
            throw new IllegalArgumentException(file + " holds no sample: expected lines of 'feature,...,feature,label'");
        }
        int features = columns - 1;
        float[] x = new float[xs.size() * features];
        int[] y = new int[xs.size()];
        int classes = 0;
        for (int i = 0; i < xs.size(); i++) {
            System.arraycopy(xs.get(i), 0, x, i * features, features);
            y[i] = ys.get(i);
            classes = Math.max(classes, y[i] + 1);
        }
        return new TrainingData(xs.size(), features, Math.max(classes, 2), x, y,
                xs.size() + " samples from " + file + " (" + features + " features, " + classes + " classes)");
    }

    private static boolean startsWithNumber(String line) {
        char c = line.charAt(0);
        return Character.isDigit(c) || c == '-' || c == '+' || c == '.';
    }
}
