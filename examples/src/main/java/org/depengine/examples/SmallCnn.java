package org.depengine.examples;

import java.util.ArrayList;
import java.util.List;

/**
 * The keys a data-parallel step of a small CNN pushes and pulls: a pre-activation ResNet for CIFAR-10
 * (3×3 stem to 64 channels; three stages of 64, 128 and 256 channels with 3, 4 and 4 basic blocks, each
 * block BN-ReLU-conv3×3-BN-ReLU-conv3×3, 1×1 projection shortcuts into stages 2 and 3) with a VGG-style
 * head (the 4×4×256 map flattened into fc 4096→256, then fc 256→10). One key per tensor: a conv's
 * weights ({@code out × in × 3 × 3}), a batch-norm layer's γ, β, running mean and variance together
 * ({@code 4 × channels}), fc1's weights and its bias, fc2's weights with its bias. 50 keys from 1 KiB
 * (a 64-channel BN) to 4 MiB (fc1), 6.9 M floats in all.
 */
final class SmallCnn {
    /** One key: its name and length in floats. */
    record Key(String name, int floats) {
    }

    private SmallCnn() {
    }

    /** The 50 keys, in the network's order from the input. */
    static List<Key> keys() {
        List<Key> keys = new ArrayList<>();
        keys.add(conv("stem", 3, 64, 3));
        int[] widths = {64, 128, 256};
        int[] blocks = {3, 4, 4};
        int in = 64;
        for (int s = 0; s < widths.length; s++) {
            int out = widths[s];
            for (int b = 0; b < blocks[s]; b++) {
                String block = "s" + (s + 1) + "b" + (b + 1);
                keys.add(new Key(block + ".bn1", 4 * in));
                keys.add(conv(block + ".conv1", in, out, 3));
                keys.add(new Key(block + ".bn2", 4 * out));
                keys.add(conv(block + ".conv2", out, out, 3));
                if (b == 0 && in != out) {
                    keys.add(conv(block + ".shortcut", in, out, 1));
                }
                in = out;
            }
        }
        keys.add(new Key("fc1.w", 4 * 4 * 256 * 256));
        keys.add(new Key("fc1.b", 256));
        keys.add(new Key("fc2", 256 * 10 + 10));
        return List.copyOf(keys);
    }

    /** The floats of all keys. */
    static long floats(List<Key> keys) {
        return keys.stream().mapToLong(Key::floats).sum();
    }

    private static Key conv(String name, int in, int out, int k) {
        return new Key(name, out * in * k * k);
    }
}
