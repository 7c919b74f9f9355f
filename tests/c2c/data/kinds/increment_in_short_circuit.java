import java.util.*;

// a post-increment inside a short-circuit condition happens whenever it is evaluated, true or not
public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        int limit = sc.nextInt();
        int taken = 0, seen = 0;
        for (int i = 0; i < n; i++) {
            int v = sc.nextInt();
            if (v % 2 == 0 && seen++ < limit) taken += v;
        }
        System.out.println(taken + " " + seen);
    }
}
