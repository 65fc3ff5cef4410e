import java.lang.ref.WeakReference;
import java.util.concurrent.locks.LockSupport;

public class VmResult2 {
    static volatile WeakReference<Throwable> ref;
    static volatile boolean thrown;
    static volatile boolean throwNow;
    static int sink;

    static void runIt(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            sink += e.getMessage().length();
        }
    }

    public static void main(String[] a) throws Exception {
        Runnable r = () -> {
            if (throwNow) {
                IllegalStateException e = new IllegalStateException("boom");
                ref = new WeakReference<>(e);
                throw e;
            }
            sink++;
        };
        Thread t = new Thread(() -> {
            for (long round = 0; ; round++) {
                runIt(r);
                if (throwNow) {
                    thrown = true;
                    LockSupport.park();
                } else if ((round & 1023) == 0) {
                    LockSupport.parkNanos(1);
                }
            }
        }, "worker");
        t.setDaemon(true);
        t.start();
        Thread.sleep(Long.parseLong(a[0]));
        throwNow = true;
        while (!thrown) {
            Thread.sleep(1);
        }
        Thread.sleep(200);
        for (int i = 0; i < 10; i++) {
            System.gc();
        }
        System.out.println(ref.get() != null ? "KEPT" : "released");
    }
}
