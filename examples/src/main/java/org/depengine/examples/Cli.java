package org.depengine.examples;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.depengine.api.EngineException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.ParameterException;

/**
 * Runs an example's command line with picocli, the same way for every example: {@code --help} prints
 * the usage text, a bad argument or a refused value prints one line naming it and exits with
 * {@value #USAGE_ERROR}, and nothing the user typed ends in a stack trace.
 *
 * <p>An example is a {@code @Command} class implementing {@link Callable Callable&lt;Integer&gt;} that
 * mixes in {@link CommonOptions}; its {@code main} is {@code System.exit(Cli.run(new X(), args))}.
 */
final class Cli {
    /** The exit status for a bad command line or a value the example refused. */
    static final int USAGE_ERROR = CommandLine.ExitCode.USAGE;

    private Cli() {
    }

    /**
     * Parses {@code args} into {@code command}, runs it, and returns the exit status: the command's
     * own, {@value #USAGE_ERROR} for a bad argument or an {@link IllegalArgumentException} the example
     * threw about a value, and 1 (with one line, no stack trace) for an {@link EngineException} or an
     * {@link IllegalStateException} (e.g. no engine of the name given); any other exception propagates.
     */
    static int run(Callable<Integer> command, String[] args) {
        CommandLine cl = new CommandLine(command);
        // An example's description array is source-code line wrapping, not lines of output: picocli prints
        // each element on a line of its own and wraps it again, breaking sentences mid-line. One paragraph
        // lets picocli wrap it once, at the terminal's width.
        UsageMessageSpec usage = cl.getCommandSpec().usageMessage();
        usage.description(String.join(" ", usage.description()));
        cl.setParameterExceptionHandler(ONE_LINE_PARAMETER_ERROR);
        cl.setExecutionExceptionHandler(ONE_LINE_EXECUTION_ERROR);
        return cl.execute(args);
    }

    /**
     * Checks an option's value against its range.
     *
     * @return {@code value}
     * @throws IllegalArgumentException naming the option and the range, which {@link #run} prints in one line
     */
    static int inRange(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(option + " " + value + " is out of range: give an integer in " + min + ".." + max);
        }
        return value;
    }

    /** As {@link #inRange(String, int, int, int)} for a number. */
    static double inRange(String option, double value, double min, double max) {
        if (!(value >= min && value <= max)) {
            throw new IllegalArgumentException(option + " " + value + " is out of range: give a number in " + min + ".." + max);
        }
        return value;
    }

    private static final IParameterExceptionHandler ONE_LINE_PARAMETER_ERROR = (ParameterException e, String[] args) -> {
        CommandLine cl = e.getCommandLine();
        printOneLine(cl, e.getMessage() + "; try --help");
        return USAGE_ERROR;
    };

    private static final IExecutionExceptionHandler ONE_LINE_EXECUTION_ERROR = (e, cl, parseResult) -> {
        if (e instanceof IllegalArgumentException) {
            printOneLine(cl, e.getMessage());
            return USAGE_ERROR;
        }
        if (e instanceof EngineException || e instanceof IllegalStateException) {
            // An op failed, or the engine/device asked for is not there: the message says what to do.
            printOneLine(cl, e.getMessage());
            return CommandLine.ExitCode.SOFTWARE;
        }
        throw e; // a defect: keep the stack trace
    };

    private static void printOneLine(CommandLine cl, String message) {
        PrintWriter err = cl.getErr();
        // A message from lower down may span lines; the user gets the first, which names the problem.
        String first = message == null ? "failed" : message.lines().findFirst().orElse("failed");
        err.println(cl.getCommandName() + ": " + first);
        err.flush();
    }
}
