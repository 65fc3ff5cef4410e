package org.depengine.device.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import jcuda.JCudaVersion;
import jcuda.LibUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes JCuda's native libraries loadable wherever the jars sit: class path or module path.
 *
 * <p>Why: JCuda's loader ({@code jcuda.LibUtils}) tries {@code System.loadLibrary} (only works with
 * {@code java.library.path} set), then reads {@code /lib/<file>} with {@code LibUtils.class
 * .getResourceAsStream}, writes it to {@code java.io.tmpdir/<file>} unless that file exists, and
 * {@code System.load}s it. On the module path {@code LibUtils} is in automatic module {@code jcuda},
 * and {@code Class.getResourceAsStream} only looks inside that module, never in {@code jcuda.natives}:
 * "No resource found". So this class finds the resource itself, through any class loader or module
 * that can see it (automatic modules open all their packages, and class-path jars are not
 * encapsulated), and writes it, atomically, to exactly the file JCuda checks. JCuda then loads that
 * file. Where the library can be loaded from this class's own class loader (the same one as JCuda's),
 * it is {@code System.load}ed here first, so that a missing {@code libcuda.so.1} surfaces as a plain
 * {@link UnsatisfiedLinkError} with the loader's message, before JCuda wraps it.
 */
final class JCudaNatives {
    private static final Logger LOG = LoggerFactory.getLogger(JCudaNatives.class);

    private JCudaNatives() {
    }

    /** Loads the JCuda driver-API library ({@code libJCudaDriver-<version>-<os>-<arch>}). */
    static void loadDriver() {
        prepare("JCudaDriver");
    }

    /** Loads the JNvrtc library (the runtime compiler's bindings). */
    static void loadNvrtc() {
        prepare("JNvrtc");
    }

    /** Loads the JCublas2 library. */
    static void loadCublas() {
        prepare("JCublas2");
    }

    /** The file name JCuda uses for a library, e.g. {@code libJCudaDriver-12.6.0-linux-x86_64.so}. */
    static String fileName(String baseName) {
        return LibUtils.createLibraryFileName(LibUtils.createPlatformLibraryName(baseName + "-" + JCudaVersion.get()));
    }

    /** The file JCuda's loader looks for before it looks for the resource. */
    static Path jcudaTempFile(String fileName) {
        return Path.of(System.getProperty("java.io.tmpdir"), fileName);
    }

    private static void prepare(String baseName) {
        String file = fileName(baseName);
        Path target = jcudaTempFile(file);
        try {
            extract(file, target);
        } catch (IOException e) {
            // Not fatal by itself: JCuda may still find the library on java.library.path.
            LOG.debug("could not extract {} to {}", file, target, e);
        }
        if (Files.isRegularFile(target) && JCudaNatives.class.getClassLoader() == LibUtils.class.getClassLoader()) {
            // Same class loader as JCuda's: loading here binds the library for JCuda's classes too, and a
            // later System.load of the same file by JCuda is a no-op. Throws UnsatisfiedLinkError with the
            // dynamic linker's message (e.g. "libcuda.so.1: cannot open shared object file").
            System.load(target.toAbsolutePath().toString());
            LOG.debug("loaded {}", target);
        }
    }

    /**
     * Writes the library resource to {@code target} unless an identical file is already there. The
     * write goes to a temporary file in the same directory and is moved into place atomically, so a
     * JVM loading the file concurrently never sees half of it.
     */
    private static void extract(String file, Path target) throws IOException {
        byte[] content = readResource("lib/" + file);
        if (content == null) {
            LOG.debug("resource lib/{} not visible to any class loader or module; relying on JCuda's own loader", file);
            return;
        }
        if (Files.isRegularFile(target) && Files.size(target) == content.length
                && java.util.Arrays.equals(Files.readAllBytes(target), content)) {
            return;
        }
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file, ".part");
        try {
            Files.write(tmp, content);
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            LOG.debug("extracted lib/{} to {}", file, target);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static byte[] readResource(String name) throws IOException {
        for (ClassLoader loader : loaders()) {
            try (InputStream in = loader.getResourceAsStream(name)) {
                if (in != null) {
                    return in.readAllBytes();
                }
            }
        }
        // Named modules of the layers we can see: an automatic module opens every package, so
        // Module.getResourceAsStream from here succeeds for jcuda.natives.
        for (ModuleLayer layer : layers()) {
            for (Module m : layer.modules()) {
                try (InputStream in = m.getResourceAsStream(name)) {
                    if (in != null) {
                        return in.readAllBytes();
                    }
                }
            }
        }
        return null;
    }

    private static List<ClassLoader> loaders() {
        Set<ClassLoader> set = new LinkedHashSet<>();
        Optional.ofNullable(LibUtils.class.getClassLoader()).ifPresent(set::add);
        Optional.ofNullable(JCudaNatives.class.getClassLoader()).ifPresent(set::add);
        Optional.ofNullable(Thread.currentThread().getContextClassLoader()).ifPresent(set::add);
        set.add(ClassLoader.getSystemClassLoader());
        return new ArrayList<>(set);
    }

    private static List<ModuleLayer> layers() {
        Set<ModuleLayer> set = new LinkedHashSet<>();
        Optional.ofNullable(LibUtils.class.getModule().getLayer()).ifPresent(set::add);
        Optional.ofNullable(JCudaNatives.class.getModule().getLayer()).ifPresent(set::add);
        set.add(ModuleLayer.boot());
        return new ArrayList<>(set);
    }
}
