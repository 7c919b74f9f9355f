import java.util.*;

// Java runs without -ea: an assert (here one with a message) does nothing
public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        assert n > 100 : "n too small";
        assert n < 0;
        System.out.println(n * 2);
    }
}
